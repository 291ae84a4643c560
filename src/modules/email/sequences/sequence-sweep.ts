import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { describeError } from '../../../common/queue/job-handler';
import { PeriodicTask } from '../../../common/queue/periodic-task';
import { clock } from '../../../common/time/clock';
import type { DueStep } from './enrollments.repository';
import { SequenceStepJobs } from './sequence-step-jobs';

/** How long past due an active step waits before the sweep looks at it. */
const GRACE_SECONDS = 60;
const INTERVAL_MS = 15_000;
const BATCH = 500;

/**
 * Adds step jobs that went missing, in every worker process: an active enrolment of an active sequence
 * whose step is a minute past due has lost its job (the process died between COMMIT and the add, Redis
 * refused it, or a resume raced a held step). Adding an id that exists is a no-op, and a step that runs
 * twice is claimed once. Each pass pushes the rows it took a minute ahead, under SKIP LOCKED, so sweeps
 * side by side share the work. Enrolments of paused sequences wait for the resume.
 */
@Injectable()
export class SequenceSweep implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(SequenceSweep.name);
  private readonly task = new PeriodicTask(
    INTERVAL_MS,
    async () => {
      const added = await this.runOnce();
      if (added) this.logger.log(`sequence sweep re-added ${added} step job(s)`);
    },
    (err) => this.logger.warn(`sequence sweep failed: ${describeError(err)}`),
  );

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly stepJobs: SequenceStepJobs,
  ) {}

  onApplicationBootstrap(): void {
    this.task.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.task.stop();
  }

  /** One pass; answers how many jobs it (re-)added. Works across tenants by design: each row names its own. */
  async runOnce(graceSeconds = GRACE_SECONDS): Promise<number> {
    const result = await this.dataSource.query<[DueStep[], number]>(
      `UPDATE email_sequence_enrollments SET next_step_at = $3::timestamptz + make_interval(secs => $1)
        WHERE id IN (SELECT e.id FROM email_sequence_enrollments e
                       JOIN email_sequences s ON s.id = e.sequence_id AND s.status = 'active'
                      WHERE e.status = 'active' AND e.next_step_at < $3::timestamptz - make_interval(secs => $1)
                      ORDER BY e.next_step_at LIMIT $2 FOR UPDATE OF e SKIP LOCKED)
        RETURNING id AS "enrollmentId", current_step AS "step", $3::timestamptz AS "nextStepAt", tenant_id AS "tenantId", mode`,
      [graceSeconds, BATCH, clock.now()],
    );
    const due = result[0] ?? [];
    await this.stepJobs.add(due);
    return due.length;
  }
}
