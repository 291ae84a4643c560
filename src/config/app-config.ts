import { AuditEnv, auditSettings, AuditSettings } from './audit.config';
import { DatabaseEnv, DatabaseSettings, databaseSettings } from './database.config';
import { EmailEnv, EmailSettings, emailSettings, sequenceSettings } from './email.config';
import { ConfigError, Env, processEnvironment, readEnv } from './env';
import { HttpEnv, HttpSettings, httpSettings } from './http.config';
import {
  QueueDashboardSettings,
  queueDashboardSettings,
  QueueOverrides,
  queueOverrides,
  QueuesEnv,
  WorkerSettings,
  workerSettings,
} from './queues.config';
import { RedisEnv, RedisSettings, redisSettings } from './redis.config';
import { ReminderSettings, reminderSettings, RemindersEnv } from './reminders.config';
import { authSettings, idempotencySettings, RateLimitSettings, rateLimitSettings, RequestsEnv } from './requests.config';
import { RetentionEnv, RetentionSettings, retentionSettings } from './retention.config';
import { clockSettings, LogFormat, logSettings, RuntimeEnv, runtimeSettings } from './runtime.config';
import { SecretsEnv, SecretSettings, secretSettings } from './secrets.config';
import { SmsEnv, SmsSettings, smsSettings } from './sms.config';
import { WebhooksEnv, WebhookSettings, webhookSettings } from './webhooks.config';

export { ConfigError, processEnvironment } from './env';
export type { AuditSettings } from './audit.config';
export type { EmailSettings } from './email.config';
export { parseTrustProxy } from './http.config';
export type { HttpSettings, TrustProxy } from './http.config';
export type { RateLimitWindow } from './requests.config';
export type { RetentionSettings } from './retention.config';
export type { LogFormat } from './runtime.config';
export type { SmsProviderName, SmsSettings } from './sms.config';
export type { WebhookSettings } from './webhooks.config';

/**
 * The validated configuration, one group per concern; each concern's variables, their defaults and checks
 * live in its own file beside this one (http.config.ts, database.config.ts …). Built once by `loadConfig`;
 * nothing else reads `process.env`. Database and Redis URLs may be filled in later by the embedded fallbacks.
 */
export class AppConfig {
  readonly http: HttpSettings;
  readonly database: DatabaseSettings;
  readonly redis: RedisSettings;
  readonly email: EmailSettings;
  readonly log: { level: string; format: LogFormat };
  readonly workers: WorkerSettings;
  readonly auth: { cacheTtlMs: number };
  readonly rateLimits: RateLimitSettings;
  readonly idempotency: { ttlMs: number; lockMs: number };
  readonly queues: QueueOverrides;
  readonly webhooks: WebhookSettings;
  readonly audit: AuditSettings;
  readonly queueDashboard: QueueDashboardSettings;
  readonly secrets: SecretSettings;
  readonly sequences: { minuteMs: number };
  readonly runtime: { heapGrowingPercent: number };
  readonly clock: { offsetMs: number };
  readonly sms: SmsSettings;
  readonly reminders: ReminderSettings;
  readonly retention: RetentionSettings;

  constructor(groups: Omit<AppConfig, 'appSecret' | 'databaseUrl' | 'migrationsUrl' | 'redisUrl'>) {
    this.http = groups.http;
    this.database = groups.database;
    this.redis = groups.redis;
    this.email = groups.email;
    this.log = groups.log;
    this.workers = groups.workers;
    this.auth = groups.auth;
    this.rateLimits = groups.rateLimits;
    this.idempotency = groups.idempotency;
    this.queues = groups.queues;
    this.webhooks = groups.webhooks;
    this.audit = groups.audit;
    this.queueDashboard = groups.queueDashboard;
    this.secrets = groups.secrets;
    this.sequences = groups.sequences;
    this.runtime = groups.runtime;
    this.clock = groups.clock;
    this.sms = groups.sms;
    this.reminders = groups.reminders;
    this.retention = groups.retention;
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

  /** Where migrations connect: DATABASE_DIRECT_URL, else the database URL. */
  get migrationsUrl(): string {
    return this.database.directUrl ?? this.databaseUrl;
  }

  get redisUrl(): string {
    if (!this.redis.url) throw new ConfigError('REDIS_URL has not been resolved');
    return this.redis.url;
  }
}

/**
 * Validates the environment, concern by concern; a bad value throws a ConfigError whose message names the
 * variable. Every variable's check runs before the rules across variables (APP_SECRET in production, the
 * Twilio account with SMS_PROVIDER=twilio, CORS_ORIGINS as URLs).
 */
export function loadConfig(env: Env = processEnvironment()): AppConfig {
  const database = readEnv(DatabaseEnv, env);
  const redis = readEnv(RedisEnv, env);
  const http = readEnv(HttpEnv, env);
  const email = readEnv(EmailEnv, env);
  const sms = readEnv(SmsEnv, env);
  const reminders = readEnv(RemindersEnv, env);
  const runtime = readEnv(RuntimeEnv, env);
  const queues = readEnv(QueuesEnv, env);
  const requests = readEnv(RequestsEnv, env);
  const webhooks = readEnv(WebhooksEnv, env);
  const audit = readEnv(AuditEnv, env);
  const secrets = readEnv(SecretsEnv, env);
  const retention = readEnv(RetentionEnv, env);
  const secretGroup = secretSettings(secrets);
  const smsGroup = smsSettings(sms);
  return new AppConfig({
    http: httpSettings(http),
    database: databaseSettings(database),
    redis: redisSettings(redis),
    email: emailSettings(email),
    log: logSettings(runtime),
    workers: workerSettings(queues),
    auth: authSettings(requests),
    rateLimits: rateLimitSettings(requests),
    idempotency: idempotencySettings(requests),
    queues: queueOverrides(queues),
    webhooks: webhookSettings(webhooks),
    audit: auditSettings(audit),
    queueDashboard: queueDashboardSettings(queues),
    secrets: secretGroup,
    sequences: sequenceSettings(email),
    runtime: runtimeSettings(runtime),
    clock: clockSettings(runtime),
    sms: smsGroup,
    reminders: reminderSettings(reminders),
    retention: retentionSettings(retention),
  });
}
