import { Injectable } from '@nestjs/common';
import { ResourceNotFoundProblem, ServiceUnavailableProblem, ValidationFailedException } from '../../common/http/errors/problem';
import { ClockedJob, JobOutbox } from '../../common/queue/job-outbox';
import { JobQueue } from '../../common/queue/job-queue';
import { JobName } from '../../common/queue/queues';
import { BusinessClock } from '../../common/time/business-clock';
import { clock } from '../../common/time/clock';
import { unscopedSql } from '../../database/sql';
import type { TenantScope } from '../../database/tenant-owned.entity';
import { Transactions } from '../../database/transactions';
import { TestClockAdvancedDto, TestClockDto, TestClockRunDto } from './dto/test-clock.dto';

const DAY = 86_400_000;
/** How far past real time a test clock may go. */
const MAX_AHEAD_MS = 730 * DAY;
/** How long an advance waits for the jobs it made due before answering 503 (the clock stays where it got to). */
const WAIT_MS = 25_000;
const POLL_MS = 20;
/** The advisory lock class of test clocks: one advance of a tenant's clock at a time. */
const LOCK_CLASS = 0x7e57c10c;

/** What each kind of job counts as in `ran`. */
const KINDS: Partial<Record<JobName, keyof TestClockRunDto>> = {
  [JobName.ReminderSend]: 'reminders',
  [JobName.EmailSequenceStep]: 'sequenceSteps',
  [JobName.HoldExpire]: 'holdsExpired',
  [JobName.WaitlistOfferExpire]: 'offersExpired',
};

/**
 * Test clocks (test mode only; a live key gets 404). Moving a clock forward runs the tenant's test-mode
 * work due by then, in due order, through the one mechanism that runs delayed work: the job outbox keeps
 * each delayed job's due time on its tenant's clock, and the advance moves the clock to each due time in
 * turn, makes those jobs due now in the queue, and waits until the workers have finished them. Their
 * handlers read the moved clock and claim their work in PostgreSQL as always, so a job that a worker also
 * runs does its work once. Advances of one clock take turns (an advisory lock held by the advance).
 */
@Injectable()
export class TestClocksService {
  constructor(
    private readonly clock: BusinessClock,
    private readonly outbox: JobOutbox,
    private readonly queue: JobQueue,
    private readonly transactions: Transactions,
  ) {}

  async get(scope: TenantScope): Promise<TestClockDto> {
    testModeOnly(scope);
    return this.view(await this.clock.offsetMs(scope));
  }

  async advance(scope: TenantScope, to: string): Promise<TestClockAdvancedDto> {
    testModeOnly(scope);
    const target = Date.parse(to);
    const now = await this.clock.nowMs(scope);
    if (target < now) throw invalidTo(`must not be before the clock's now (${new Date(now).toISOString()})`);
    if (target > clock.nowMs() + MAX_AHEAD_MS) throw invalidTo('must be at most 730 days past real time');
    if (!this.queue.available) throw new ServiceUnavailableProblem('The job queue (Redis) is unreachable; the clock did not move');
    const ran: TestClockRunDto = { reminders: 0, sequenceSteps: 0, holdsExpired: 0, offersExpired: 0 };
    try {
      await this.transactions.run(async (tx) => {
        // Held until this advance ends: a second advance of the clock waits, then finds the work done.
        await unscopedSql(tx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, [LOCK_CLASS, scope.tenantId]);
        const seen: string[] = [];
        const deadline = Date.now() + WAIT_MS;
        for (;;) {
          const due = await this.outbox.dueOnClock(scope.tenantId, new Date(target), seen);
          if (!due.length) break;
          // Everything due at the earliest time left runs with the clock at that time.
          const batch = due.filter((job) => job.runAt!.getTime() === due[0].runAt!.getTime());
          await this.checkWorkers(batch);
          await this.clock.moveTestClock(scope.tenantId, batch[0].runAt!.getTime());
          await this.runAll(batch, deadline);
          for (const job of batch) {
            seen.push(job.id);
            const kind = KINDS[job.name];
            if (kind) ran[kind] += 1;
          }
        }
        await this.clock.moveTestClock(scope.tenantId, target);
      });
    } finally {
      // What is not due yet waits for the clock's new time, wherever the advance stopped.
      await this.outbox.retime(scope.tenantId);
    }
    return { ...this.view(await this.clock.offsetMs(scope)), ran };
  }

  async reset(scope: TenantScope): Promise<TestClockDto> {
    testModeOnly(scope);
    await this.transactions.run(async (tx) => {
      await unscopedSql(tx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, [LOCK_CLASS, scope.tenantId]);
      await this.clock.moveTestClock(scope.tenantId, 'reset');
    });
    await this.outbox.retime(scope.tenantId);
    return this.view(0);
  }

  /** 503 before the clock moves when no worker serves a queue of these jobs (they would never finish). */
  private async checkWorkers(jobs: readonly ClockedJob[]): Promise<void> {
    const names = [...new Set(jobs.map((job) => job.name))];
    const workers = await Promise.all(names.map((name) => this.queue.workerCount(name)));
    if (workers.includes(0))
      throw new ServiceUnavailableProblem('No worker is running to run the work due by the test clock; the clock stopped before it');
  }

  /** Makes the jobs due and waits until each has finished for good (its outbox row is gone). */
  private async runAll(jobs: readonly ClockedJob[], deadline: number): Promise<void> {
    if ((await this.outbox.runNow(jobs)) > 0)
      throw new ServiceUnavailableProblem('The job queue (Redis) is unreachable; the clock stopped at the work it could not run');
    let waiting = jobs.map((job) => job.id);
    while (waiting.length) {
      if (Date.now() > deadline) {
        throw new ServiceUnavailableProblem(
          'Work due by the test clock is still running (are the workers running?); advance again to finish it',
        );
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      waiting = await this.outbox.unfinished(waiting);
    }
  }

  private view(offsetMs: number): TestClockDto {
    return { now: new Date(clock.nowMs() + offsetMs).toISOString(), offsetMs };
  }
}

function testModeOnly(scope: TenantScope): void {
  // Live mode has no test clock: as for any route that does not exist.
  if (scope.mode !== 'test') throw new ResourceNotFoundProblem('The test clock');
}

function invalidTo(message: string): ValidationFailedException {
  return new ValidationFailedException([{ field: 'to', message }]);
}
