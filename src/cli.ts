import { parseArgs } from 'node:util';
import { DynamicModule, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppConfig } from './config/app-config';
import { CoreModule } from './core.module';
import { exitOnStartupError, prepareInfrastructure } from './infrastructure';
import { DemoSeeder } from './cli/demo-seeder';
import { TenantsModule } from './modules/tenants/tenants.module';
import { TenantsService } from './modules/tenants/tenants.service';
import { SettingsModule } from './modules/settings/settings.module';
import { PatientsModule } from './modules/patients/patients.module';
import { FormsModule } from './modules/forms/forms.module';

@Module({})
class CliModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: CliModule,
      imports: [CoreModule.forRoot(config, { logDestination: 2 }), TenantsModule, SettingsModule, PatientsModule, FormsModule],
      providers: [DemoSeeder],
    };
  }
}

const USAGE = `usage:
  node dist/cli.js tenants:create --name "Acme Clinic"   create a tenant and one OWNER key per mode (JSON on stdout)
  node dist/cli.js seed:demo --tenant <tenantId>         fill a tenant's test mode with demo data
  node dist/cli.js migrations:run                        apply pending migrations`;

function fail(message: string): never {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

/** Operator commands. Stdout carries only the command's JSON answer; logs go to stderr. */
async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  const { values } = parseArgs({ args: rest, options: { name: { type: 'string' }, tenant: { type: 'string' } }, strict: true });
  if (!command) fail('a command is required');
  if (!['tenants:create', 'seed:demo', 'migrations:run'].includes(command)) fail(`unknown command: ${command}`);
  if (command === 'tenants:create' && !values.name?.trim()) fail('--name is required');
  if (command === 'seed:demo' && !values.tenant) fail('--tenant is required');

  const infra = await prepareInfrastructure();
  if (command === 'migrations:run') {
    process.stdout.write(`${JSON.stringify({ migrated: true })}\n`);
    await infra.stop();
    return;
  }
  const app = await NestFactory.createApplicationContext(CliModule.forRoot(infra.config), { logger: ['error'] });
  try {
    let result: unknown;
    if (command === 'tenants:create') {
      result = await app.get(TenantsService).create(values.name!.trim());
    } else {
      if (!(await app.get(TenantsService).exists(values.tenant!))) fail(`no tenant ${values.tenant}`);
      result = await app.get(DemoSeeder).seed(values.tenant!);
    }
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await app.close();
    await infra.stop();
  }
}

main().catch(exitOnStartupError);
