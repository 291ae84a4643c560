import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { DependencyStatus } from '../../common/observability/dependency-status';
import { AppConfig } from '../../config/app-config';
import { sqlStateOf } from '../../database/database-errors';
import { AuditChunk, AuditCopyBuffer, AuditRecord, copyData, patientCopyData } from './audit-copy-buffer';
import { AuditLoader } from './audit.loader';

/**
 * A flush of this many entries (~1.8 MiB of a GET's, one COPY) starts at once rather than at the next
 * interval. Each COPY costs the API about 0.5 ms of CPU besides its bytes (its round trips and wake-ups on
 * the loader's socket), so fewer, larger ones: per entry, a COPY of 10,000 costs about half of one of 500
 * (bench/audit-copy.mjs; bench/README.md, Audit log).
 */
const FLUSH_AT = 10_000;
/** Chunks per COPY (64 KiB each, ~350 entries of a GET): after an outage, a batch refused as data loses no more. */
const MAX_COPY_CHUNKS = 32;
/** Past this, a database outage would exhaust memory: the oldest entries are dropped (and logged). */
const MAX_BUFFERED = 100_000;
/**
 * How long a graceful shutdown keeps trying to write what the database could not take (well within the
 * compose file's 30 s stop grace period), and how long it waits between tries: no flush follows this one.
 */
export const SHUTDOWN_RETRY_MS = 10_000;
const SHUTDOWN_RETRY_DELAY_MS = 200;

/**
 * Buffers audit entries (encoded at once as binary COPY tuples, off the JavaScript heap: AuditCopyBuffer)
 * and has AuditLoader write them with one COPY per flush (several, bounded, after an outage), so that
 * recording a request costs it no database round trip. Flushed every AUDIT_FLUSH_INTERVAL_MS, when
 * FLUSH_AT entries are waiting, and at a graceful shutdown, which Nest runs after the HTTP server has
 * finished its in-flight requests; that last flush is tried again for SHUTDOWN_RETRY_MS while the database
 * does not take it, and the loader's connection closes after it. A write that fails
 * for want of the database is retried at the next flush; one the database refuses as data (which the
 * encoding should make impossible) is dropped and logged, so that it cannot hold back every later entry.
 */
@Injectable()
export class AuditWriter implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(AuditWriter.name);
  private readonly buffer = new AuditCopyBuffer();
  private timer?: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly loader: AuditLoader,
    private readonly config: AppConfig,
    private readonly dependencies: DependencyStatus,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.flush(), this.config.audit.flushIntervalMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
    const deadline = Date.now() + SHUTDOWN_RETRY_MS;
    while (this.buffer.size && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, SHUTDOWN_RETRY_DELAY_MS));
      await this.flush();
    }
    // Said at error whatever the reason: an outage already reported is not a reason to lose entries quietly.
    if (this.buffer.size) this.logger.error(`stopping with ${this.buffer.size} audit entries the database did not take: they are lost`);
    await this.loader.close();
  }

  write(record: AuditRecord): void {
    this.buffer.append(record);
    if (this.buffer.size > MAX_BUFFERED) {
      const dropped = this.buffer.dropOldest(MAX_BUFFERED);
      if (dropped) this.logger.error(`audit buffer full; dropped the ${dropped} oldest entries`);
    }
    if (this.buffer.size === FLUSH_AT) void this.flush();
  }

  /** Writes everything buffered so far; flushes run one after another, never in parallel. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.writeBuffered());
    return this.flushing;
  }

  /**
   * Loads what is buffered in COPYs of at most MAX_COPY_CHUNKS chunks: one in steady running, several after
   * an outage. A COPY the database refuses as data loses only its own entries; one that fails for want of
   * the database puts it and the rest back for the next flush.
   */
  private async writeBuffered(): Promise<void> {
    const chunks = this.buffer.take();
    for (let from = 0; from < chunks.length; from += MAX_COPY_CHUNKS) {
      const batch = chunks.slice(from, from + MAX_COPY_CHUNKS);
      try {
        await this.loader.copy(copyData(batch), patientCopyData(batch));
      } catch (err) {
        if (isDataError(err)) {
          this.logger.error(`the database refused ${entriesIn(batch)} audit entries as data; dropped them: ${sqlStateOf(err)}`);
          continue;
        }
        const kept = chunks.slice(from);
        this.buffer.restore(kept);
        // An outage is logged once by DependencyStatus, not at every flush until it ends.
        const level = this.dependencies.reportFailure(err, 'audit-writer') ? 'debug' : 'warn';
        this.logger[level](`could not write ${entriesIn(kept)} audit entries; retrying at the next flush: ${(err as Error).name}`);
        return;
      }
    }
  }
}

const entriesIn = (chunks: AuditChunk[]): number => chunks.reduce((n, c) => n + c.entries, 0);

/** SQLSTATE class 22 (data exception) or 23 (integrity constraint): the same bytes would fail again. */
function isDataError(err: unknown): boolean {
  const code = sqlStateOf(err);
  return code !== undefined && (code.startsWith('22') || code.startsWith('23'));
}
