import { setFlagsFromString } from 'node:v8';
import type { Logger as Pino } from 'pino';
import { createLog } from './common/observability/logger';
import { AppConfig, ConfigError, loadConfig } from './config/app-config';
import { runMigrations } from './database/database-options';
import { startEmbeddedPostgres } from './database/embedded-postgres';
import { resolveDefaultRedis } from './common/redis/redis-server';
import { readOrCreateAppSecret } from './common/crypto/app-secret';
import { appCryptoFor } from './common/crypto/crypto.module';

export interface Infrastructure {
  config: AppConfig;
  /** The process's start-up and lifecycle lines, in LOG_FORMAT on stderr, written synchronously (an exit follows some). */
  log: Pino;
  /** Stops what this process started (embedded PostgreSQL, a spawned redis-server). */
  stop(): Promise<void>;
}

/** Set once the configuration is valid; before that (a configuration error) a line is plain text. */
let startupLog: Pino | undefined;

const say = (line: string): void => {
  if (startupLog) startupLog.info(line);
  else process.stderr.write(`${line}\n`);
};

/**
 * Caps how far V8 grows the heap past what its last full collection kept (HEAP_GROWING_PERCENT). V8 reads
 * the flag at every collection, so setting it once at start-up (NODE_OPTIONS does not accept it) holds
 * for the life of the process.
 */
function tuneHeapGrowth(percent: number): void {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
}

/**
 * Validates the configuration, then makes sure PostgreSQL and Redis are there: the configured ones, or
 * the embedded defaults; resolves the application secret (APP_SECRET, else the one generated in DATA_DIR);
 * then applies pending migrations unless MIGRATIONS_RUN=false.
 */
export async function prepareInfrastructure(options: { migrate?: boolean } = {}): Promise<Infrastructure> {
  const config = loadConfig();
  startupLog = createLog(config.log.level, config.log.format, 2, true);
  tuneHeapGrowth(config.runtime.heapGrowingPercent);
  config.secrets.appSecret ??= readOrCreateAppSecret(config.database.dataDir, say);
  const stops: (() => Promise<void> | void)[] = [];
  if (!config.database.url) {
    const embedded = await startEmbeddedPostgres(config.database.dataDir, config.database.embeddedPort, say);
    config.database.url = embedded.url;
    stops.push(() => embedded.stop());
  }
  if (!config.redis.url && !config.redis.clusterNodes) {
    const redis = await resolveDefaultRedis(say);
    config.redis.url = redis.url;
    stops.push(() => redis.stop());
  }
  if (options.migrate !== false && config.database.migrationsRun) {
    const applied = await runMigrations(config.migrationsUrl, appCryptoFor(config));
    if (applied.length) say(`applied migrations: ${applied.join(', ')}`);
  }
  return {
    config,
    log: startupLog,
    stop: async () => {
      for (const stop of stops.reverse()) await stop();
    },
  };
}

/** Exits with one clear line for configuration errors and unreachable services. */
export function exitOnStartupError(err: unknown): never {
  const message = err instanceof ConfigError ? err.message : `Start-up failed: ${(err as Error)?.message ?? String(err)}`;
  if (startupLog) startupLog.fatal(message);
  else process.stderr.write(`${message}\n`);
  process.exit(1);
}
