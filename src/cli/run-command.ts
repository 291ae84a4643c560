import { DynamicModule, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Mode } from '../common/auth/auth.types';
import { AppConfig } from '../config/app-config';
import { CoreModule } from '../core.module';
import { runMigrations } from '../database/database-options';
import { appCryptoFor } from '../common/crypto/crypto.module';
import { prepareInfrastructure } from '../infrastructure';
import { DemoSeeder } from './demo-seeder';
import { demoSummary } from './demo-summary';
import { clock } from '../common/time/clock';
import { TenantsModule } from '../modules/tenants/tenants.module';
import { TenantsService } from '../modules/tenants/tenants.service';
import { SettingsModule } from '../modules/settings/settings.module';
import { PatientsModule } from '../modules/patients/patients.module';
import { FormsModule } from '../modules/forms/forms.module';
import { BookingPagesModule } from '../modules/booking-pages/booking-pages.module';
import { SchedulingModule } from '../modules/scheduling/scheduling.module';
import { EncountersModule } from '../modules/encounters/encounters.module';
import { EmailModule } from '../modules/email/email.module';
import { SequencesModule } from '../modules/email/sequences/sequences.module';
import { SmsModule } from '../modules/sms/sms.module';
import { SmsNumbersModule, SmsNumbersService, SmsNumberTakenError } from '../modules/sms-numbers';

import { Args, fail } from './command-line';

@Module({})
class CliModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: CliModule,
      imports: [
        CoreModule.forRoot(config, { logDestination: 2 }),
        TenantsModule,
        SettingsModule,
        PatientsModule,
        FormsModule,
        SchedulingModule,
        EncountersModule,
        BookingPagesModule,
        EmailModule,
        SequencesModule,
        SmsModule,
        SmsNumbersModule,
      ],
      providers: [DemoSeeder],
    };
  }
}

/** Runs an operator command. Stdout carries only the command's answer; logs go to stderr. */
export async function runCommand(args: Args): Promise<void> {
  if (args.command === 'migrations:run') {
    // The command's whole point is to migrate: MIGRATIONS_RUN only governs what servers do at start-up.
    const infra = await prepareInfrastructure({ migrate: false });
    try {
      const migrated = await runMigrations(infra.config.migrationsUrl, appCryptoFor(infra.config));
      process.stdout.write(`${JSON.stringify({ migrated })}\n`);
    } finally {
      await infra.stop();
    }
    return;
  }

  const infra = await prepareInfrastructure();
  const app = await NestFactory.createApplicationContext(CliModule.forRoot(infra.config), { logger: ['error'] });
  // `undefined`: the tenant named does not exist; an error: the command was refused (each reported after the app has stopped).
  let output: string | SmsNumberTakenError | undefined;
  try {
    const tenants = app.get(TenantsService);
    if (args.command === 'tenants:create') {
      output = JSON.stringify(await tenants.create(args.name!));
    } else if (args.command === 'keys:create') {
      const issued = await tenants.issueKey(args.tenant!, args.mode!, args.role);
      if (issued) output = JSON.stringify(issued);
    } else if (args.tenant !== undefined && !(await tenants.exists(args.tenant))) {
      // reported below, once the app has stopped
    } else if (args.command === 'sms-numbers:list') {
      output = JSON.stringify({ numbers: await app.get(SmsNumbersService).list(args.tenant) });
    } else if (args.command === 'sms-numbers:assign') {
      output = await assignNumber(app.get(SmsNumbersService), { tenantId: args.tenant!, mode: args.mode! }, args.number!);
    } else if (args.command === 'sms-numbers:unassign') {
      const scope = { tenantId: args.tenant!, mode: args.mode! };
      output = JSON.stringify({ ...scope, number: await app.get(SmsNumbersService).unassign(scope) });
    } else {
      const seeded = await app.get(DemoSeeder).seed(args.tenant!);
      output = args.json ? JSON.stringify(seeded) : demoSummary(seeded, infra.config.http.publicUrl, clock.nowMs());
    }
  } finally {
    await app.close();
    await infra.stop();
  }
  if (output instanceof SmsNumberTakenError) fail(output.message);
  if (output === undefined) fail(`no tenant ${args.tenant}`);
  process.stdout.write(`${output}\n`);
}

/** The assignment as printed, or the refusal (reported once the app has stopped). */
async function assignNumber(
  numbers: SmsNumbersService,
  scope: { tenantId: string; mode: Mode },
  number: string,
): Promise<string | SmsNumberTakenError> {
  try {
    return JSON.stringify(await numbers.assign(scope, number));
  } catch (err) {
    if (err instanceof SmsNumberTakenError) return err;
    throw err;
  }
}
