import { plainToInstance, Transform } from 'class-transformer';
import {
  IsBoolean,
  IsEmail,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateBy,
  validateSync,
} from 'class-validator';
import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import type { Mode } from '../database/tenant-owned.entity';

type Env = Record<string, string | undefined>;

export type LogFormat = 'auto' | 'json' | 'pretty';

export type SmsProviderName = 'log' | 'twilio';

const E164 = /^\+[1-9]\d{6,14}$/;

/**
 * How a message's send, a reminder's send job and a webhook delivery are retried unless configured: tries,
 * and the first retry's delay (each later one doubles). The variables' defaults and the groups' defaults
 * both read these; the reasons are beside each variable.
 */
export const RETRY_DEFAULTS = {
  email: { maxAttempts: 6, retryBaseMs: 5_000 },
  sms: { maxAttempts: 6, retryBaseMs: 5_000 },
  reminders: { maxAttempts: 7, retryBaseMs: 2_000 },
  webhooks: { maxAttempts: 15, retryBaseMs: 30_000 },
} as const;

/** Fastify's `trustProxy`: false (the peer is the client), true (any peer), a hop count, or the trusted proxies' addresses. */
export type TrustProxy = boolean | number | string[];

/** proxy-addr's names for address ranges, which Fastify accepts beside addresses and CIDRs. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** TRUST_PROXY as Fastify takes it, or undefined when the value is none of its forms. */
export function parseTrustProxy(value: string): TrustProxy | undefined {
  const v = value.trim().toLowerCase();
  if (['true', 'on', 'yes'].includes(v)) return true;
  if (['', 'false', 'off', 'no', '0'].includes(v)) return false;
  if (/^\d+$/.test(v)) return Number(v) <= 64 ? Number(v) : undefined;
  const entries = v.split(',').map((e) => e.trim());
  return entries.every(isProxyAddress) ? entries : undefined;
}

function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address, bits, ...rest] = entry.split('/');
  const family = isIP(address);
  if (!family || rest.length) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

const toInt = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
const toBool = ({ value }: { value: unknown }): unknown => {
  if (typeof value !== 'string') return value;
  const v = value.trim().toLowerCase();
  if (['1', 'true', 'on', 'yes'].includes(v)) return true;
  if (['0', 'false', 'off', 'no'].includes(v)) return false;
  return value;
};

/** The environment as the service accepts it. Every variable is validated once, at start-up. */
class EnvironmentVariables {
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'must be a postgres:// URL' })
  DATABASE_URL?: string;

  @IsOptional()
  @Matches(/^rediss?:\/\/\S+$/, { message: 'must be a redis:// URL' })
  REDIS_URL?: string;

  @IsOptional()
  @Matches(/^[A-Za-z0-9_.:-]{1,64}$/, { message: 'must be 1-64 characters of letters, digits, _ . : -' })
  REDIS_PREFIX = 'pm';

  @IsString() HOST = '127.0.0.1';

  @Transform(toInt)
  @IsInt({ message: 'must be an integer' })
  @Min(0)
  @Max(65535)
  PORT = 3000;

  @IsOptional()
  @Matches(/^https?:\/\/\S+$/, { message: 'must be an http(s) URL' })
  PUBLIC_URL?: string;

  /** Origins (scheme://host[:port], comma-separated) whose pages may call the keyed routes from a browser. */
  @IsOptional()
  @Matches(/^\s*https?:\/\/[^/\s,]+\/?\s*(,\s*https?:\/\/[^/\s,]+\/?\s*)*$/, {
    message: 'must be comma-separated origins such as https://portal.example.com (scheme, host and port only)',
  })
  CORS_ORIGINS?: string;
  /** Who may name the client in X-Forwarded-For: off, true, a hop count, or the proxies' addresses/CIDRs. */
  @ValidateBy({
    name: 'isTrustProxy',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && parseTrustProxy(value) !== undefined,
      defaultMessage: () => 'must be true, false, a hop count, or comma-separated proxy addresses or CIDRs',
    },
  })
  TRUST_PROXY = 'false';

  @IsOptional()
  @Matches(/^smtps?:\/\/\S+$/, { message: 'must be an smtp:// or smtps:// URL' })
  SMTP_URL?: string;

  /** A staging catch-all relay (Mailpit, MailHog) for test-mode email; unset, test-mode email is captured, never sent. */
  @IsOptional()
  @Matches(/^smtps?:\/\/\S+$/, { message: 'must be an smtp:// or smtps:// URL' })
  TEST_SMTP_URL?: string;

  @IsEmail({ allow_display_name: true }, { message: 'must be an email address' })
  EMAIL_FROM = 'Practice <no-reply@practice.local>';

  /** Tries per email before it ends `failed` (a failure before the message reached the server). */
  @Transform(toInt)
  @IsInt({ message: 'must be an integer' })
  @Min(1)
  @Max(20)
  EMAIL_MAX_ATTEMPTS: number = RETRY_DEFAULTS.email.maxAttempts;

  /** The first retry's delay; each later one doubles (5 s, 10 s, … 80 s by default: about 2.5 minutes in all). */
  @Transform(toInt)
  @IsInt({ message: 'must be an integer' })
  @Min(10)
  @Max(3_600_000)
  EMAIL_RETRY_BASE_MS: number = RETRY_DEFAULTS.email.retryBaseMs;

  /** `log`: messages are marked sent and logged by id; `twilio`: sent through Twilio's Messages API. */
  @IsIn(['log', 'twilio'], { message: 'must be log or twilio' })
  SMS_PROVIDER: SmsProviderName = 'log';

  @IsOptional()
  @Matches(/^AC[0-9a-fA-F]{32}$/, { message: 'must be a Twilio account SID (AC followed by 32 hex digits)' })
  TWILIO_ACCOUNT_SID?: string = undefined;

  @IsOptional()
  @Matches(/^\S{16,128}$/, { message: 'must be a Twilio auth token (16-128 characters without spaces)' })
  TWILIO_AUTH_TOKEN?: string = undefined;

  @IsOptional()
  @Matches(E164, { message: 'must be a phone number in E.164 form (+15005550006)' })
  TWILIO_FROM?: string = undefined;

  /** Tests only: where the Twilio package's requests go instead of https://api.twilio.com. */
  @IsOptional()
  @Matches(/^https?:\/\/[^\s/]+\/?$/, { message: 'must be an http(s) origin such as http://127.0.0.1:4010' })
  TWILIO_API_BASE_URL?: string = undefined;

  /** Tries per SMS before it ends `failed` (a provider error or no answer each time). */
  @Transform(toInt)
  @IsInt({ message: 'must be an integer' })
  @Min(1)
  @Max(20)
  SMS_MAX_ATTEMPTS: number = RETRY_DEFAULTS.sms.maxAttempts;

  /** The first retry's delay; each later one doubles (5 s, 10 s, … 80 s by default). */
  @Transform(toInt)
  @IsInt({ message: 'must be an integer' })
  @Min(10)
  @Max(3_600_000)
  SMS_RETRY_BASE_MS: number = RETRY_DEFAULTS.sms.retryBaseMs;

  /** How long one request to the provider may take before the try counts as failed (and is retried). */
  @Transform(toInt)
  @IsInt({ message: 'must be an integer' })
  @Min(100)
  @Max(60_000)
  SMS_TIMEOUT_MS = 10_000;

  /** Tries per reminder job before the reminder ends `failed` (our own failure each time: database, Redis). */
  @Transform(toInt)
  @IsInt({ message: 'must be an integer' })
  @Min(1)
  @Max(20)
  REMINDER_MAX_ATTEMPTS: number = RETRY_DEFAULTS.reminders.maxAttempts;

  /** The first retry's delay; each later one doubles (2 s, 4 s, … 64 s by default: about 2 minutes in all). */
  @Transform(toInt)
  @IsInt({ message: 'must be an integer' })
  @Min(10)
  @Max(3_600_000)
  REMINDER_RETRY_BASE_MS: number = RETRY_DEFAULTS.reminders.retryBaseMs;

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  /** auto: readable lines (pino-pretty) when the output is a terminal, JSON lines otherwise. */
  @IsIn(['auto', 'json', 'pretty'])
  LOG_FORMAT: LogFormat = 'auto';

  @Transform(toBool)
  @IsBoolean({ message: 'must be on or off' })
  WORKERS = true;

  /**
   * dist/worker.js has no HTTP listener: set, it answers GET /health/live and /health/ready on HOST and this
   * port, for a container's health check. Unset: no listener (a worker beside an API on PORT needs none).
   */
  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'must be an integer' })
  @Min(1)
  @Max(65535)
  WORKER_HEALTH_PORT?: number = undefined;

  /** `production`: APP_SECRET must be set; a secret generated beside the data is for development only. */
  @IsOptional()
  @IsString()
  NODE_ENV?: string = undefined;

  @Transform(toBool)
  @IsBoolean({ message: 'must be true or false' })
  MIGRATIONS_RUN = true;

  @IsString() DATA_DIR = '.data';

  @Transform(toInt)
  @IsInt({ message: 'must be an integer' })
  @Min(1)
  @Max(65535)
  EMBEDDED_POSTGRES_PORT = 54329;

  @Transform(toInt) @Min(0) @IsInt({ message: 'must be an integer >= 0' }) RATE_LIMIT_TEST_PER_SECOND = 10;
  @Transform(toInt) @Min(0) @IsInt({ message: 'must be an integer >= 0' }) RATE_LIMIT_TEST_PER_HOUR = 100;
  @Transform(toInt) @Min(0) @IsInt({ message: 'must be an integer >= 0' }) RATE_LIMIT_TEST_PER_DAY = 1000;
  @Transform(toInt) @Min(0) @IsInt({ message: 'must be an integer >= 0' }) RATE_LIMIT_LIVE_PER_SECOND = 100;
  @Transform(toInt) @Min(0) @IsInt({ message: 'must be an integer >= 0' }) RATE_LIMIT_LIVE_PER_HOUR = 10000;
  @Transform(toInt) @Min(0) @IsInt({ message: 'must be an integer >= 0' }) RATE_LIMIT_LIVE_PER_DAY = 0;
  /** Per client IP, for requests without a valid key and for the public pages. */
  @Transform(toInt) @Min(0) @IsInt({ message: 'must be an integer >= 0' }) RATE_LIMIT_IP_PER_SECOND = 20;
  @Transform(toInt) @Min(0) @IsInt({ message: 'must be an integer >= 0' }) RATE_LIMIT_IP_PER_HOUR = 1000;

  /** How long a POST's first response is kept for replays under its Idempotency-Key (integrators are told 24 hours). */
  @Transform(toInt)
  @IsInt({ message: 'must be an integer' })
  @Min(60)
  @Max(7 * 86400)
  IDEMPOTENCY_TTL_SECONDS = 86400;

  /** How long an Idempotency-Key stays claimed by a request still running (409 for duplicates meanwhile). */
  @Transform(toInt)
  @IsInt({ message: 'must be an integer' })
  @Min(1)
  @Max(3600)
  IDEMPOTENCY_LOCK_SECONDS = 60;

  /** Seconds a verified key stays cached in memory; revocation evicts it at once through Redis. */
  @Transform(toInt)
  @IsInt({ message: 'must be an integer >= 0' })
  @Min(0)
  @Max(3600)
  AUTH_CACHE_TTL_SECONDS = 60;

  /**
   * Override every queue's lock duration and stalled-job check interval (src/common/queue/queues.ts sets
   * them per queue). For tests that kill workers and would otherwise wait a minute for the job to resume.
   */
  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'must be an integer' })
  @Min(1)
  @Max(600)
  QUEUE_LOCK_SECONDS?: number = undefined;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'must be an integer' })
  @Min(1)
  @Max(600)
  QUEUE_STALLED_CHECK_SECONDS?: number = undefined;

  /** Development and tests only: lets webhook URLs be http and resolve to loopback or private addresses. */
  @Transform(toBool)
  @IsBoolean({ message: 'must be true or false' })
  WEBHOOK_ALLOW_PRIVATE_URLS = false;

  /** How long one webhook delivery attempt may take before it counts as failed. */
  @Transform(toInt)
  @IsInt({ message: 'must be an integer' })
  @Min(100)
  @Max(60_000)
  WEBHOOK_TIMEOUT_MS = 10_000;

  /** The first retry's delay; each later one doubles, capped at 720 times this (6 hours by default). */
  @Transform(toInt)
  @IsInt({ message: 'must be an integer' })
  @Min(10)
  @Max(3_600_000)
  WEBHOOK_RETRY_BASE_MS: number = RETRY_DEFAULTS.webhooks.retryBaseMs;

  /** Attempts per delivery; with the default base, 15 attempts span 26 to 39 hours (jitter). */
  @Transform(toInt)
  @IsInt({ message: 'must be an integer' })
  @Min(1)
  @Max(50)
  WEBHOOK_MAX_ATTEMPTS: number = RETRY_DEFAULTS.webhooks.maxAttempts;

  /** How often a worker moves committed events from the outbox into delivery jobs. */
  @Transform(toInt)
  @IsInt({ message: 'must be an integer' })
  @Min(10)
  @Max(60_000)
  EVENTS_RELAY_INTERVAL_MS = 500;

  /** How often buffered audit-log entries are written (and always at a graceful shutdown). */
  @Transform(toInt)
  @IsInt({ message: 'must be an integer' })
  @Min(10)
  @Max(600_000)
  AUDIT_FLUSH_INTERVAL_MS = 1_000;

  /**
   * The application secret every encryption key and signature key is derived from (src/common/crypto).
   * Unset: one is generated into DATA_DIR/app-secret on first start (development only; production sets it).
   */
  @IsOptional()
  @Matches(/^\S{32,512}$/, { message: 'must be 32-512 characters without spaces (e.g. openssl rand -base64 32)' })
  APP_SECRET?: string;

  /** Earlier application secrets, comma-separated: what they encrypted still opens after a rotation. */
  @IsOptional()
  @Matches(/^\S{32,512}(,\S{32,512})*$/, { message: 'must be comma-separated secrets of 32-512 characters' })
  APP_SECRET_PREVIOUS?: string;

  /** Benchmarks only (bench/audit.mjs measures the audit log's cost against it): false records nothing. */
  @Transform(toBool)
  @IsBoolean({ message: 'must be true or false' })
  AUDIT_LOG_ENABLED = true;

  /** Benchmarks only (BENCH_ACCESS_LOG=1 bench/audit.mjs): false records no patient ids with audit entries (no access log). */
  @Transform(toBool)
  @IsBoolean({ message: 'must be true or false' })
  PATIENT_ACCESS_LOG_ENABLED = true;

  /** Whole months of audit log kept past the current one; older monthly partitions are dropped (HIPAA: six years). */
  @Transform(toInt)
  @IsInt({ message: 'must be an integer' })
  @Min(1)
  @Max(1_200)
  AUDIT_RETENTION_MONTHS = 72;

  /** Days an event (with its webhook deliveries and attempts) is kept; at least 2, past a delivery's last retry. */
  @Transform(toInt)
  @IsInt({ message: 'must be an integer' })
  @Min(2)
  @Max(36_500)
  EVENTS_RETENTION_DAYS = 30;

  /** Days a sent email's rendered bodies are kept after sending; the message's metadata stays. */
  @Transform(toInt)
  @IsInt({ message: 'must be an integer' })
  @Min(1)
  @Max(36_500)
  EMAIL_BODY_RETENTION_DAYS = 30;

  /**
   * How far V8 lets the heap grow past what the last full collection kept, in percent (V8's
   * --heap-growing-percent; 0 leaves V8's own factor, up to 300%). Under load V8's factor lets the old
   * generation fill with short-lived request garbage far past the memory target; 50 holds it under for a
   * few more full collections (docs/decisions/0007-heap-growth-cap.md).
   */
  @Transform(toInt)
  @IsInt({ message: 'must be an integer' })
  @Min(0)
  @Max(1_000)
  HEAP_GROWING_PERCENT = 50;

  /** Unset: no queue dashboard (/admin/queues is 404). Set: the dashboard, behind HTTP Basic auth. */
  @IsOptional()
  @IsString()
  @MinLength(12, { message: 'must be at least 12 characters' })
  @MaxLength(256)
  QUEUE_DASHBOARD_PASSWORD?: string;

  @Matches(/^[^:\s]{1,64}$/, { message: 'must be 1-64 characters without colons or spaces' })
  QUEUE_DASHBOARD_USERNAME = 'admin';

  /** Tests only: how long one minute of a sequence step's delay lasts, so tests can wait out delays. */
  @Transform(toInt)
  @IsInt({ message: 'must be an integer' })
  @Min(10)
  @Max(60_000)
  EMAIL_SEQUENCE_MINUTE_MS = 60_000;

  /** false: the dashboard may also retry, promote, clean and remove jobs. */
  @Transform(toBool)
  @IsBoolean({ message: 'must be true or false' })
  QUEUE_DASHBOARD_READ_ONLY = true;

  /**
   * Tests only: moves the business clock (src/common/time/clock.ts) this many milliseconds, so that a
   * suite runs as if on another date. At most ten years either way.
   */
  @Transform(toInt)
  @IsInt({ message: 'must be an integer' })
  @Min(-315_576_000_000)
  @Max(315_576_000_000)
  CLOCK_OFFSET_MS = 0;
}

export class ConfigError extends Error {}

/** Variables whose values an error message never repeats. */
const SECRET_VARIABLES = new Set([
  'QUEUE_DASHBOARD_PASSWORD',
  'APP_SECRET',
  'APP_SECRET_PREVIOUS',
  'TWILIO_AUTH_TOKEN',
  'SMTP_URL',
  'TEST_SMTP_URL',
]);

export interface WebhookSettings {
  allowPrivateUrls: boolean;
  timeoutMs: number;
  retryBaseMs: number;
  maxAttempts: number;
  relayIntervalMs: number;
}

export interface EmailSettings {
  /** Unset: live messages go to the log transport (marked sent, `transport: "log"`). */
  smtpUrl?: string;
  /** TEST_SMTP_URL. Unset: test-mode messages are captured (marked sent, `transport: "test"`); never SMTP_URL. */
  testSmtpUrl?: string;
  from: string;
  maxAttempts: number;
  retryBaseMs: number;
}

export interface SmsSettings {
  provider: SmsProviderName;
  /** Set together (start-up refuses SMS_PROVIDER=twilio without them); the token also verifies Twilio's callbacks. */
  twilio?: { accountSid: string; authToken: string; from: string; apiBaseUrl?: string };
  maxAttempts: number;
  retryBaseMs: number;
  timeoutMs: number;
}

export interface RetentionSettings {
  /** AUDIT_RETENTION_MONTHS */
  auditMonths: number;
  /** EVENTS_RETENTION_DAYS */
  eventsDays: number;
  /** EMAIL_BODY_RETENTION_DAYS */
  emailBodyDays: number;
}

export interface RateLimitWindow {
  name: 'second' | 'hour' | 'day';
  seconds: number;
  limit: number;
}

/** The configuration's groups, one per concern; the optional ones have defaults (see AppConfig). */
export interface AppConfigGroups {
  /** `corsOrigins`: browser origins allowed to call the keyed routes (CORS_ORIGINS), normalised as browsers send them. */
  /** `publicUrlSet`: PUBLIC_URL was given (not the default http://HOST:PORT), so pages may name it beside their own origin. */
  http: { host: string; port: number; publicUrl: string; publicUrlSet: boolean; corsOrigins: string[]; trustProxy?: TrustProxy };
  database: { url?: string; migrationsRun: boolean; dataDir: string; embeddedPort: number };
  redis: { url?: string; prefix: string };
  email: EmailSettings;
  log: { level: string; format: LogFormat };
  /** `healthPort`: see WORKER_HEALTH_PORT. */
  workers: { enabled: boolean; healthPort?: number };
  auth: { cacheTtlMs: number };
  rateLimits: Record<Mode | 'ip', RateLimitWindow[]>;
  idempotency: { ttlMs: number; lockMs: number };
  /** Unset: each queue's own policy. */
  queues?: { lockDurationMs?: number; stalledIntervalMs?: number };
  webhooks?: WebhookSettings;
  /** `patientAccessLog`: PATIENT_ACCESS_LOG_ENABLED. */
  audit?: { flushIntervalMs: number; enabled: boolean; patientAccessLog: boolean };
  /** No password: no dashboard. */
  queueDashboard?: { password?: string; username: string; readOnly: boolean };
  /** `appSecret` unset: start-up fills it in from DATA_DIR (see readOrCreateAppSecret). */
  secrets?: { appSecret?: string; previous: string[] };
  /** `minuteMs`: the length of a step delay's minute (60,000 but in tests). */
  sequences?: { minuteMs: number };
  /** `heapGrowingPercent`: see HEAP_GROWING_PERCENT; 0 leaves V8's default. */
  runtime?: { heapGrowingPercent: number };
  /** `offsetMs`: CLOCK_OFFSET_MS (tests only); CoreModule applies it to the clock at start-up. */
  clock?: { offsetMs: number };
  sms?: SmsSettings;
  /** REMINDER_MAX_ATTEMPTS and REMINDER_RETRY_BASE_MS: how a reminder's send job is retried. */
  reminders?: { maxAttempts: number; retryBaseMs: number };
  /** What the workers' retention sweeps keep (docs/data-retention.md). */
  retention?: RetentionSettings;
}

/**
 * The validated configuration, grouped by concern. Built once by `loadConfig`; nothing else reads
 * `process.env`. Database and Redis URLs may be filled in later by the embedded fallbacks.
 */
export class AppConfig {
  readonly http: AppConfigGroups['http'];
  readonly database: AppConfigGroups['database'];
  readonly redis: AppConfigGroups['redis'];
  readonly email: EmailSettings;
  readonly log: AppConfigGroups['log'];
  readonly workers: AppConfigGroups['workers'];
  readonly auth: AppConfigGroups['auth'];
  readonly rateLimits: AppConfigGroups['rateLimits'];
  readonly idempotency: AppConfigGroups['idempotency'];
  readonly queues: NonNullable<AppConfigGroups['queues']>;
  readonly webhooks: WebhookSettings;
  readonly audit: NonNullable<AppConfigGroups['audit']>;
  readonly queueDashboard: NonNullable<AppConfigGroups['queueDashboard']>;
  readonly secrets: NonNullable<AppConfigGroups['secrets']>;
  readonly sequences: NonNullable<AppConfigGroups['sequences']>;
  readonly runtime: NonNullable<AppConfigGroups['runtime']>;
  readonly clock: NonNullable<AppConfigGroups['clock']>;
  readonly sms: SmsSettings;
  readonly reminders: NonNullable<AppConfigGroups['reminders']>;
  readonly retention: RetentionSettings;

  /** Built by loadConfig from the environment; a group left out takes its default. */
  constructor(groups: AppConfigGroups) {
    this.http = groups.http;
    this.database = groups.database;
    this.redis = groups.redis;
    this.email = groups.email;
    this.log = groups.log;
    this.workers = groups.workers;
    this.auth = groups.auth;
    this.rateLimits = groups.rateLimits;
    this.idempotency = groups.idempotency;
    this.queues = groups.queues ?? {};
    this.webhooks = groups.webhooks ?? {
      allowPrivateUrls: false,
      timeoutMs: 10_000,
      ...RETRY_DEFAULTS.webhooks,
      relayIntervalMs: 500,
    };
    this.audit = groups.audit ?? { flushIntervalMs: 1_000, enabled: true, patientAccessLog: true };
    this.queueDashboard = groups.queueDashboard ?? { username: 'admin', readOnly: true };
    this.secrets = groups.secrets ?? { previous: [] };
    this.sequences = groups.sequences ?? { minuteMs: 60_000 };
    this.runtime = groups.runtime ?? { heapGrowingPercent: 50 };
    this.clock = groups.clock ?? { offsetMs: 0 };
    this.sms = groups.sms ?? { provider: 'log', ...RETRY_DEFAULTS.sms, timeoutMs: 10_000 };
    this.reminders = groups.reminders ?? { ...RETRY_DEFAULTS.reminders };
    this.retention = groups.retention ?? { auditMonths: 72, eventsDays: 30, emailBodyDays: 30 };
  }

  /** The application secret; throws if start-up has not resolved it. */
  get appSecret(): string {
    if (!this.secrets.appSecret) throw new ConfigError('APP_SECRET has not been resolved');
    return this.secrets.appSecret;
  }

  /** The database URL; throws if start-up has not resolved it (embedded fallback not started). */
  get databaseUrl(): string {
    if (!this.database.url) throw new ConfigError('DATABASE_URL has not been resolved');
    return this.database.url;
  }

  get redisUrl(): string {
    if (!this.redis.url) throw new ConfigError('REDIS_URL has not been resolved');
    return this.redis.url;
  }
}

function windows(second: number, hour: number, day: number): RateLimitWindow[] {
  const all: RateLimitWindow[] = [
    { name: 'second', seconds: 1, limit: second },
    { name: 'hour', seconds: 3600, limit: hour },
    { name: 'day', seconds: 86400, limit: day },
  ];
  return all.filter((w) => w.limit > 0); // 0 means no limit for that window
}

/** CORS_ORIGINS as browsers send an Origin (lower-case host, no default port); a URL that does not parse stops start-up. */
function corsOrigins(value: string | undefined): string[] {
  return (value?.split(',') ?? []).map((entry) => {
    try {
      return new URL(entry.trim()).origin;
    } catch {
      throw new ConfigError(`Invalid configuration: CORS_ORIGINS has an origin that is not a URL (got "${entry.trim()}")`);
    }
  });
}

/**
 * The process's environment, with `.env` of the working directory read into it first when there is one
 * (`npm start`, the worker and the CLI alike): a variable already set wins, as Node's loadEnvFile never
 * overrides one. Read into process.env itself, so the pg driver's own PG* variables may come from it too.
 */
export function processEnvironment(cwd = process.cwd()): Env {
  const file = join(cwd, '.env');
  if (existsSync(file)) process.loadEnvFile(file);
  return process.env;
}

/** Validates the environment; a bad value throws a ConfigError whose message names the variable. */
export function loadConfig(env: Env = processEnvironment()): AppConfig {
  const raw: Record<string, string> = {};
  for (const key of Object.keys(new EnvironmentVariables())) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  for (const key of ['DATABASE_URL', 'REDIS_URL', 'PUBLIC_URL', 'SMTP_URL', 'TEST_SMTP_URL', 'APP_SECRET', 'APP_SECRET_PREVIOUS']) {
    if (env[key]) raw[key] = env[key];
  }
  const vars = plainToInstance(EnvironmentVariables, raw);
  const errors = validateSync(vars, { forbidUnknownValues: false });
  if (errors.length > 0) {
    const first = errors[0];
    const constraints = first.constraints ?? {};
    // Say what the value should be (an integer, a URL) before how big it may be.
    const typeCheck = ['isInt', 'isBoolean', 'matches', 'isIn', 'isEmail', 'isString', 'isTrustProxy'].find((c) => constraints[c]);
    const reason = (typeCheck && constraints[typeCheck]) ?? Object.values(constraints)[0] ?? 'is invalid';
    // A secret is never echoed, not even a wrong one: start-up errors end up in logs.
    const got = SECRET_VARIABLES.has(first.property) ? '' : ` (got "${String(raw[first.property])}")`;
    throw new ConfigError(`Invalid configuration: ${first.property} ${reason.replace(`${first.property} `, '')}${got}`);
  }
  // Checked before anything touches the disk: in a container DATA_DIR is read-only, and each process
  // would otherwise generate a secret of its own that no other process could open ciphertexts with.
  if (vars.NODE_ENV === 'production' && !vars.APP_SECRET) {
    throw new ConfigError(
      'APP_SECRET is required when NODE_ENV=production: set the same 32+ random characters (openssl rand -base64 32) for the API and every worker',
    );
  }
  const sms = smsSettings(vars);
  return new AppConfig({
    http: {
      host: vars.HOST,
      port: vars.PORT,
      publicUrl: (vars.PUBLIC_URL ?? `http://${vars.HOST}:${vars.PORT}`).replace(/\/$/, ''),
      publicUrlSet: vars.PUBLIC_URL !== undefined,
      corsOrigins: corsOrigins(vars.CORS_ORIGINS),
      trustProxy: parseTrustProxy(vars.TRUST_PROXY),
    },
    database: {
      url: vars.DATABASE_URL,
      migrationsRun: vars.MIGRATIONS_RUN,
      dataDir: vars.DATA_DIR,
      embeddedPort: vars.EMBEDDED_POSTGRES_PORT,
    },
    redis: { url: vars.REDIS_URL, prefix: vars.REDIS_PREFIX },
    email: {
      smtpUrl: vars.SMTP_URL,
      testSmtpUrl: vars.TEST_SMTP_URL,
      from: vars.EMAIL_FROM,
      maxAttempts: vars.EMAIL_MAX_ATTEMPTS,
      retryBaseMs: vars.EMAIL_RETRY_BASE_MS,
    },
    log: { level: vars.LOG_LEVEL, format: vars.LOG_FORMAT },
    workers: { enabled: vars.WORKERS, healthPort: vars.WORKER_HEALTH_PORT },
    auth: { cacheTtlMs: vars.AUTH_CACHE_TTL_SECONDS * 1000 },
    rateLimits: {
      test: windows(vars.RATE_LIMIT_TEST_PER_SECOND, vars.RATE_LIMIT_TEST_PER_HOUR, vars.RATE_LIMIT_TEST_PER_DAY),
      live: windows(vars.RATE_LIMIT_LIVE_PER_SECOND, vars.RATE_LIMIT_LIVE_PER_HOUR, vars.RATE_LIMIT_LIVE_PER_DAY),
      ip: windows(vars.RATE_LIMIT_IP_PER_SECOND, vars.RATE_LIMIT_IP_PER_HOUR, 0),
    },
    idempotency: { ttlMs: vars.IDEMPOTENCY_TTL_SECONDS * 1000, lockMs: vars.IDEMPOTENCY_LOCK_SECONDS * 1000 },
    queues: {
      lockDurationMs: vars.QUEUE_LOCK_SECONDS !== undefined ? vars.QUEUE_LOCK_SECONDS * 1000 : undefined,
      stalledIntervalMs: vars.QUEUE_STALLED_CHECK_SECONDS !== undefined ? vars.QUEUE_STALLED_CHECK_SECONDS * 1000 : undefined,
    },
    webhooks: {
      allowPrivateUrls: vars.WEBHOOK_ALLOW_PRIVATE_URLS,
      timeoutMs: vars.WEBHOOK_TIMEOUT_MS,
      retryBaseMs: vars.WEBHOOK_RETRY_BASE_MS,
      maxAttempts: vars.WEBHOOK_MAX_ATTEMPTS,
      relayIntervalMs: vars.EVENTS_RELAY_INTERVAL_MS,
    },
    audit: {
      flushIntervalMs: vars.AUDIT_FLUSH_INTERVAL_MS,
      enabled: vars.AUDIT_LOG_ENABLED,
      patientAccessLog: vars.PATIENT_ACCESS_LOG_ENABLED,
    },
    queueDashboard: {
      password: vars.QUEUE_DASHBOARD_PASSWORD,
      username: vars.QUEUE_DASHBOARD_USERNAME,
      readOnly: vars.QUEUE_DASHBOARD_READ_ONLY,
    },
    secrets: { appSecret: vars.APP_SECRET, previous: vars.APP_SECRET_PREVIOUS?.split(',') ?? [] },
    sequences: { minuteMs: vars.EMAIL_SEQUENCE_MINUTE_MS },
    runtime: { heapGrowingPercent: vars.HEAP_GROWING_PERCENT },
    clock: { offsetMs: vars.CLOCK_OFFSET_MS },
    sms,
    reminders: { maxAttempts: vars.REMINDER_MAX_ATTEMPTS, retryBaseMs: vars.REMINDER_RETRY_BASE_MS },
    retention: {
      auditMonths: vars.AUDIT_RETENTION_MONTHS,
      eventsDays: vars.EVENTS_RETENTION_DAYS,
      emailBodyDays: vars.EMAIL_BODY_RETENTION_DAYS,
    },
  });
}

/** SMS_PROVIDER=twilio needs its account, token and sender; one line names the first that is missing. */
function smsSettings(vars: EnvironmentVariables): SmsSettings {
  const { TWILIO_ACCOUNT_SID: accountSid, TWILIO_AUTH_TOKEN: authToken, TWILIO_FROM: from } = vars;
  if (vars.SMS_PROVIDER === 'twilio') {
    const missing = (['TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN', 'TWILIO_FROM'] as const).find((name) => !vars[name]);
    if (missing) throw new ConfigError(`Invalid configuration: ${missing} is required when SMS_PROVIDER=twilio`);
  }
  const apiBaseUrl = vars.TWILIO_API_BASE_URL?.replace(/\/$/, '');
  return {
    provider: vars.SMS_PROVIDER,
    twilio: accountSid && authToken && from ? { accountSid, authToken, from, apiBaseUrl } : undefined,
    maxAttempts: vars.SMS_MAX_ATTEMPTS,
    retryBaseMs: vars.SMS_RETRY_BASE_MS,
    timeoutMs: vars.SMS_TIMEOUT_MS,
  };
}
