import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { AuditRepository } from './audit.repository';
import { AuditEntryEntity } from './entities/audit-entry.entity';

/** A flush of this many entries starts at once rather than at the next tick. */
const FLUSH_AT = 500;
/** Past this, a database outage would exhaust memory: the oldest entries are dropped (and logged). */
const MAX_BUFFERED = 100_000;

/**
 * Buffers audit entries in memory and writes them in batches (one INSERT per batch), so that recording
 * a request costs it no database round trip. Flushed every AUDIT_FLUSH_INTERVAL_MS, when FLUSH_AT entries
 * are waiting, and at a graceful shutdown, which Nest runs after the HTTP server has finished its
 * in-flight requests and before the database pool closes. A failed write is retried at the next flush.
 */
@Injectable()
export class AuditWriter implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(AuditWriter.name);
  private buffer: AuditEntryEntity[] = [];
  private timer?: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly audit: AuditRepository,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.flush(), this.config.audit.flushIntervalMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  write(entry: AuditEntryEntity): void {
    this.buffer.push(entry);
    if (this.buffer.length > MAX_BUFFERED) {
      this.buffer.splice(0, this.buffer.length - MAX_BUFFERED);
      this.logger.error(`audit buffer full; dropped the oldest entries`);
    }
    if (this.buffer.length === FLUSH_AT) void this.flush();
  }

  /** Writes everything buffered so far; flushes run one after another, never in parallel. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.writeBuffered());
    return this.flushing;
  }

  private async writeBuffered(): Promise<void> {
    while (this.buffer.length) {
      const batch = this.buffer.splice(0, 1000);
      try {
        await this.audit.insertBatch(batch);
      } catch (err) {
        this.buffer.unshift(...batch);
        this.logger.warn(`could not write ${batch.length} audit entries; retrying at the next flush: ${(err as Error).name}`);
        return;
      }
    }
  }
}
