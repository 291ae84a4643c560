import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { uuidv7 } from '../../../common/ids';
import { JobOutbox } from '../../../common/queue/job-outbox';
import { JobName } from '../../../common/queue/queues';
import { TenantScope } from '../../../database/tenant-owned.entity';

/** A span of a provider's time that has just become free. */
export interface FreedSpan {
  providerId: string;
  from: Date;
  to: Date;
}

/**
 * Records that time was freed, in the transaction that frees it, as a job for the waitlist: it exists exactly
 * when the freeing commits, and its id (the freeing's) keeps the offer it makes to one however often it runs.
 */
@Injectable()
export class TimeFreed {
  constructor(private readonly outbox: JobOutbox) {}

  /** `freeingId`: an offer that ended, whose slot goes to the next entry; absent, a new freeing. */
  async record(scope: TenantScope, span: FreedSpan, tx: EntityManager, freeingId: string = uuidv7()): Promise<void> {
    await this.outbox.add(
      JobName.WaitlistTimeFreed,
      {
        freeingId,
        providerId: span.providerId,
        from: span.from.toISOString(),
        to: span.to.toISOString(),
        tenantId: scope.tenantId,
        mode: scope.mode,
      },
      { jobId: freeingId },
      tx,
    );
  }
}
