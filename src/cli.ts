import { parseArgs } from 'node:util';
import { DynamicModule, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MODES, Mode, ROLES, Role } from './common/auth/auth.types';
import { AppConfig } from './config/app-config';
import { CoreModule } from './core.module';
import { runMigrations } from './database/database-options';
import { appCryptoFor } from './common/crypto/crypto.module';
import { exitOnStartupError, prepareInfrastructure } from './infrastructure';
import { DemoSeeder } from './cli/demo-seeder';
import { demoSummary } from './cli/demo-summary';
import { clock } from './common/time/clock';
import { TenantsModule } from './modules/tenants/tenants.module';
import { TenantsService } from './modules/tenants/tenants.service';
import { SettingsModule } from './modules/settings/settings.module';
import { PatientsModule } from './modules/patients/patients.module';
import { FormsModule } from './modules/forms/forms.module';
import { BookingPagesModule } from './modules/booking-pages/booking-pages.module';
import { SchedulingModule } from './modules/scheduling/scheduling.module';
import { EncountersModule } from './modules/encounters/encounters.module';
import { EmailModule } from './modules/email/email.module';
import { SequencesModule } from './modules/email/sequences/sequences.module';
import { SmsModule } from './modules/sms/sms.module';
import { SENDER_NUMBER_PATTERN, SmsNumbersModule, SmsNumbersService, SmsNumberTakenError } from './modules/sms-numbers';

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

/** Each command's usage and what it does: `--help` prints them all, `<command> --help` its own. */
const HELP = {
  'tenants:create': ['--name "Acme Clinic"', 'create a tenant and one OWNER key per mode; prints {"tenant":…,"apiKeys":[…]}'],
  'keys:create': [
    '--tenant <tenantId> --mode test|live [--role OWNER|ADMIN|STAFF]',
    'issue an unscoped key (OWNER by default) for an existing tenant; prints it as tenants:create does',
  ],
  'seed:demo': [
    '--tenant <tenantId> [--json]',
    "fill the tenant's test mode with demo data; settings it already has are kept. Prints a short summary: what it added, the key ids,\n" +
      "      the booking page's URL, an appointment's manage link and a call to try; --json: every demo record's id as one JSON object",
  ],
  'sms-numbers:assign': [
    '--tenant <tenantId> --mode test|live --number +E164',
    'make the number the one the tenant texts from in that mode (and whose replies reach it); one tenant per number\n' +
      '      and mode. Prints {"tenantId":…,"mode":…,"number":…}',
  ],
  'sms-numbers:unassign': [
    '--tenant <tenantId> --mode test|live',
    'the tenant texts from TWILIO_FROM again in that mode; prints {"tenantId":…,"mode":…,"number":<the one it had, or null>}',
  ],
  'sms-numbers:list': ['[--tenant <tenantId>]', 'prints {"numbers":[{"tenantId":…,"mode":…,"number":…}…]}'],
  'migrations:run': ['', 'apply pending migrations, even with MIGRATIONS_RUN=false; prints {"migrated":[…names applied…]}'],
} as const;
type Command = keyof typeof HELP;
const COMMANDS = Object.keys(HELP) as Command[];

const usageOf = (command: Command): string => {
  const [args, says] = HELP[command];
  return `  node dist/cli.js ${command}${args ? ` ${args}` : ''}\n      ${says}`;
};
const USAGE = `usage: node dist/cli.js <command> [options]   (node dist/cli.js <command> --help for one)

${COMMANDS.map(usageOf).join('\n')}

Every command prints one JSON object on stdout (seed:demo a summary, its JSON with --json); logs and errors go
to stderr. The database and Redis are those of DATABASE_URL and REDIS_URL (unset: the embedded PostgreSQL in
DATA_DIR and the local Redis), as for the API.`;

const isHelpFlag = (arg: string | undefined): boolean => arg === '--help' || arg === '-h';

/** One line on stderr and a non-zero exit; the usage follows only when the command itself is wrong. */
function fail(message: string, withUsage = false): never {
  process.stderr.write(`error: ${message}\n${withUsage ? `${USAGE}\n` : ''}`);
  process.exit(2);
}

interface Args {
  command: Command;
  name?: string;
  tenant?: string;
  mode?: Mode;
  number?: string;
  role: Role;
  json: boolean;
}

/** Help goes to stdout with a zero exit: it is what was asked for. */
function help(text: string): never {
  process.stdout.write(`${text}\n`);
  process.exit(0);
}

function parseCommandLine(argv: string[]): Args {
  const [command, ...rest] = argv;
  if (command === 'help' || isHelpFlag(command)) help(USAGE);
  if (!command) fail('a command is required', true);
  if (!(COMMANDS as readonly string[]).includes(command)) fail(`unknown command: ${command}`, true);
  if (rest.some(isHelpFlag)) help(`usage:\n${usageOf(command as Command)}`);
  let values: { name?: string; tenant?: string; mode?: string; role?: string; number?: string; json?: boolean };
  try {
    ({ values } = parseArgs({
      args: rest,
      options: {
        name: { type: 'string' },
        tenant: { type: 'string' },
        mode: { type: 'string' },
        role: { type: 'string' },
        number: { type: 'string' },
        json: { type: 'boolean' },
      },
      strict: true,
    }));
  } catch (err) {
    fail((err as Error).message);
  }
  const args: Args = {
    command: command as Command,
    name: values.name?.trim(),
    tenant: values.tenant,
    role: 'OWNER',
    json: values.json === true,
  };
  if (command === 'tenants:create' && !args.name) fail('--name is required');
  const scoped = command === 'keys:create' || command === 'sms-numbers:assign' || command === 'sms-numbers:unassign';
  if ((command === 'seed:demo' || scoped) && !args.tenant) fail('--tenant is required');
  if (scoped) {
    if (!(MODES as readonly string[]).includes(values.mode ?? '')) fail('--mode must be test or live');
    args.mode = values.mode as Mode;
  }
  if (command === 'sms-numbers:assign') {
    args.number = values.number?.trim();
    if (!args.number || !SENDER_NUMBER_PATTERN.test(args.number)) fail('--number must be an E.164 number (+ and 7 to 15 digits)');
  }
  if (command === 'keys:create') {
    if (values.role !== undefined && !(ROLES as readonly string[]).includes(values.role)) fail('--role must be OWNER, ADMIN or STAFF');
    args.role = (values.role as Role | undefined) ?? 'OWNER';
  }
  return args;
}

/** Operator commands. Stdout carries only the command's answer; logs go to stderr. */
async function main(): Promise<void> {
  const args = parseCommandLine(process.argv.slice(2));
  if (args.command === 'migrations:run') {
    // The command's whole point is to migrate: MIGRATIONS_RUN only governs what servers do at start-up.
    const infra = await prepareInfrastructure({ migrate: false });
    try {
      const migrated = await runMigrations(infra.config.databaseUrl, appCryptoFor(infra.config));
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

main().catch(exitOnStartupError);
