import { Injectable, Logger } from '@nestjs/common';
import { inBatches } from '../../common/queue/in-batches';
import { OnJob } from '../../common/queue/job-handler';
import { JobName } from '../../common/queue/queues';
import { clock } from '../../common/time/clock';
import { AppConfig } from '../../config/app-config';
import { AuditPartitions, PartitionPass } from '../audit';
import { EmailBodyRetention } from '../email';
import { EventsRetention } from '../events';

const DAY_MS = 86_400_000;
/** Rows per statement, and per pass of each sweep: a backlog (a first run, a lowered retention) goes over several passes. */
export const SWEEP_BATCH = 1_000;
export const SWEEP_MAX_PER_PASS = 20_000;

export interface RetentionPass {
  partitions: PartitionPass;
  eventsDeleted: number;
  emailBodiesCleared: number;
}

/**
 * The retention sweeps (docs/data-retention.md), a periodic job once in the cluster every ten minutes
 * (PERIODIC_JOBS): the audit log's monthly partitions (created ahead, dropped past AUDIT_RETENTION_MONTHS),
 * events with their webhook deliveries and attempts past EVENTS_RETENTION_DAYS, and the stored bodies of
 * sent email past EMAIL_BODY_RETENTION_DAYS. Each is bounded per pass and safe if two passes meet (an
 * advisory lock for the partitions, SKIP LOCKED batches for rows). Times come from the clock.
 */
@Injectable()
export class RetentionSweeper {
  private readonly logger = new Logger(RetentionSweeper.name);

  constructor(
    private readonly config: AppConfig,
    private readonly partitions: AuditPartitions,
    private readonly events: EventsRetention,
    private readonly emailBodies: EmailBodyRetention,
  ) {}

  @OnJob(JobName.RetentionSweep)
  async run(): Promise<RetentionPass> {
    return this.runOnce();
  }

  /** One pass of every sweep; `maxPerPass` bounds the rows each row sweep touches. */
  async runOnce(maxPerPass = SWEEP_MAX_PER_PASS): Promise<RetentionPass> {
    const now = clock.now();
    const { auditMonths, eventsDays, emailBodyDays } = this.config.retention;
    const partitions = await this.partitions.maintain(now, auditMonths);
    const eventsCutoff = new Date(now.getTime() - eventsDays * DAY_MS);
    const eventsDeleted = await inBatches(SWEEP_BATCH, (limit) => this.events.deleteCreatedBefore(eventsCutoff, limit), maxPerPass);
    const bodiesCutoff = new Date(now.getTime() - emailBodyDays * DAY_MS);
    const emailBodiesCleared = await inBatches(
      SWEEP_BATCH,
      (limit) => this.emailBodies.clearSentBefore(bodiesCutoff, now, limit),
      maxPerPass,
    );
    const pass = { partitions, eventsDeleted, emailBodiesCleared };
    if (partitions.created.length || partitions.dropped.length || partitions.deleted || eventsDeleted || emailBodiesCleared) {
      this.logger.log(
        `retention: partitions created ${partitions.created.join(', ') || 'none'}, dropped ${partitions.dropped.join(', ') || 'none'}; ` +
          `${partitions.deleted} default-partition audit entries, ${eventsDeleted} events deleted; ${emailBodiesCleared} email bodies cleared`,
      );
    }
    return pass;
  }
}
