import { Injectable } from '@nestjs/common';
import type { Job } from 'bullmq';
import { JobNotReadyError, OnJob } from '../../../common/queue/job-handler';
import { JobName, WaitlistOfferExpirePayload, WaitlistTimeFreedPayload } from '../../../common/queue/queues';
import { BusinessClock } from '../../../common/time/business-clock';
import { TenantScope } from '../../../database/tenant-owned.entity';
import { WaitlistOffers } from './waitlist-offers.service';

/** The waitlist's jobs: a freeing offered to the next fitting entry, and an offer expired at its time. */
@Injectable()
export class WaitlistJobs {
  constructor(
    private readonly offers: WaitlistOffers,
    private readonly clock: BusinessClock,
  ) {}

  @OnJob(JobName.WaitlistTimeFreed)
  freed(job: Job<WaitlistTimeFreedPayload>): Promise<'offered' | 'handled' | 'nobody'> {
    return this.offers.offerFreed(job.data);
  }

  /** A job that runs before the offer's time by the clock goes back to wait. */
  @OnJob(JobName.WaitlistOfferExpire)
  async expire(job: Job<WaitlistOfferExpirePayload>): Promise<'expired' | 'settled'> {
    const { offerId, expiresAt, tenantId, mode } = job.data;
    const scope: TenantScope = { tenantId, mode };
    const dueAt = Date.parse(expiresAt);
    const now = await this.clock.nowMs(scope);
    if (dueAt > now) throw new JobNotReadyError(dueAt - now);
    return this.offers.expire(scope, offerId);
  }
}
