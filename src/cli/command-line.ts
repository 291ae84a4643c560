import { parseArgs } from 'node:util';
import { MODES, Mode, ROLES, Role } from '../common/auth/auth.types';
import { SENDER_NUMBER_PATTERN } from '../modules/sms-numbers/sender-number';

/*
 * The command line alone, with nothing heavy loaded: `--help` and a wrong command answer at once, and the
 * app (Nest, the database, every module) is loaded only for a command that runs (run-command.ts).
 */

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
export function fail(message: string, withUsage = false): never {
  process.stderr.write(`error: ${message}\n${withUsage ? `${USAGE}\n` : ''}`);
  process.exit(2);
}

export interface Args {
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

export function parseCommandLine(argv: string[]): Args {
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
