import { IsIn, IsOptional, IsString, Matches } from 'class-validator';
import { BoolVar, IntVar } from './env';

/** PostgreSQL: the server (or the embedded one under DATA_DIR) and whether start-up migrates it. */
export class DatabaseEnv {
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'must be a postgres:// URL' })
  DATABASE_URL?: string = undefined;

  /** A direct connection to the same database (no pooler): what migrations use; DATABASE_URL when unset. */
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'must be a postgres:// URL' })
  DATABASE_DIRECT_URL?: string = undefined;

  /** `transaction`: DATABASE_URL is a pooler in transaction mode (PgBouncer), so no statement is named. */
  @IsIn(['none', 'transaction'])
  DATABASE_POOLER: 'none' | 'transaction' = 'none';

  /** Streaming replicas of DATABASE_URL (comma-separated) that list and search routes read from. */
  @IsOptional()
  @Matches(/^\s*postgres(ql)?:\/\/[^\s,]+\s*(,\s*postgres(ql)?:\/\/[^\s,]+\s*)*$/, { message: 'must be comma-separated postgres:// URLs' })
  DATABASE_READ_URLS?: string = undefined;

  /** A replica further behind the primary than this is skipped until it catches up. */
  @IntVar(0)
  DATABASE_READ_MAX_LAG_MS = 5000;

  @BoolVar()
  MIGRATIONS_RUN = true;

  @IsString() DATA_DIR = '.data';

  @IntVar(1, 65535)
  EMBEDDED_POSTGRES_PORT = 54329;

  /** The pg driver's own variable, which names the request pool's connections; other pools add a suffix to it. */
  @IsOptional()
  @IsString()
  PGAPPNAME?: string = undefined;
}

export interface DatabaseSettings {
  /** Unset: start-up runs the embedded PostgreSQL and fills it in. */
  url?: string;
  /** DATABASE_DIRECT_URL: migrations hold a session-level lock, which a transaction pooler would not keep. */
  directUrl?: string;
  /** False behind a transaction pooler: hot statements then run unnamed, like the rest. */
  namedStatements: boolean;
  /** DATABASE_READ_URLS: none, every read goes to `url`. */
  readUrls: string[];
  readMaxLagMs: number;
  migrationsRun: boolean;
  dataDir: string;
  embeddedPort: number;
  /** PGAPPNAME, as the server shows the request pool's connections. */
  appName?: string;
}

export function databaseSettings(vars: DatabaseEnv): DatabaseSettings {
  return {
    url: vars.DATABASE_URL,
    directUrl: vars.DATABASE_DIRECT_URL,
    namedStatements: vars.DATABASE_POOLER !== 'transaction',
    readUrls: vars.DATABASE_READ_URLS?.split(',').map((url) => url.trim()) ?? [],
    readMaxLagMs: vars.DATABASE_READ_MAX_LAG_MS,
    migrationsRun: vars.MIGRATIONS_RUN,
    dataDir: vars.DATA_DIR,
    embeddedPort: vars.EMBEDDED_POSTGRES_PORT,
    appName: vars.PGAPPNAME,
  };
}
