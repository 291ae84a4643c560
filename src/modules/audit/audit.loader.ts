import { Injectable } from '@nestjs/common';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Pool } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { DependencyStatus } from '../../common/observability/dependency-status';
import { AppConfig } from '../../config/app-config';
import { CONNECT_TIMEOUT_MS } from '../../database/database-options';
import { PoolClient } from '../../database/pool-client';
import { AUDIT_COPY_SQL, AUDIT_PATIENTS_COPY_SQL } from './audit-copy-buffer';

/**
 * Loads batches of audit entries (AuditCopyBuffer's binary COPY stream) into `audit_log`, one COPY each,
 * over a connection of its own rather than one of the pool that serves requests: COPYs on the request pool's
 * connections cost PostgreSQL several times as much per request (bench/README.md, Audit log), and a batch
 * never holds a connection a request is waiting for. The connection is named
 * `<PGAPPNAME>/audit-writer` (or `audit-writer`) in pg_stat_activity, and is made again after a failure.
 */
@Injectable()
export class AuditLoader {
  private pool?: Pool;

  constructor(
    private readonly config: AppConfig,
    private readonly dependencies: DependencyStatus,
  ) {}

  /**
   * One COPY of `data`, in a transaction of its own: all of a batch is written or none of it. With
   * `patients` (the patients the entries' answers carried), a second COPY into audit_log_patients in the
   * same transaction, so that an entry and its patients are written together.
   */
  async copy(data: Buffer[], patients?: Buffer[] | null): Promise<void> {
    const client = await this.connection().connect();
    let failure: Error | undefined;
    try {
      if (!patients) {
        await pipeline(Readable.from(data), client.query(copyFrom(AUDIT_COPY_SQL)));
        return;
      }
      await client.query('BEGIN');
      await pipeline(Readable.from(data), client.query(copyFrom(AUDIT_COPY_SQL)));
      await pipeline(Readable.from(patients), client.query(copyFrom(AUDIT_PATIENTS_COPY_SQL)));
      await client.query('COMMIT');
    } catch (err) {
      failure = err as Error;
      throw err;
    } finally {
      client.release(failure); // a failed connection is closed; the next batch gets a new one
    }
  }

  async close(): Promise<void> {
    await this.pool?.end();
    this.pool = undefined;
  }

  private connection(): Pool {
    if (!this.pool) {
      const appName = this.config.database.appName;
      this.pool = new Pool({
        connectionString: this.config.databaseUrl,
        max: 1,
        connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
        application_name: appName ? `${appName}/audit-writer` : 'audit-writer',
        Client: PoolClient,
      });
      // An idle connection the server closes is dropped by the pool; the next batch connects again.
      this.dependencies.watchPostgres(this.pool, 'audit-writer');
    }
    return this.pool;
  }
}
