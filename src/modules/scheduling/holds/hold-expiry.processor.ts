import { Injectable } from '@nestjs/common';
import type { Job } from 'bullmq';
import { JobNotReadyError, OnJob } from '../../../common/queue/job-handler';
import { HoldExpirePayload, JobName } from '../../../common/queue/queues';
import { BusinessClock } from '../../../common/time/business-clock';
import { TenantScope } from '../../../database/tenant-owned.entity';
import { HoldsRepository } from './holds.repository';

/**
 * Expires a hold at its time, freeing its time (its claim goes with its status, by trigger). A job that runs
 * before that time by the clock goes back to wait; one whose hold was booked, released or already expired
 * (by a booking that met it) does nothing: the UPDATE itself is the claim.
 */
@Injectable()
export class HoldExpirer {
  constructor(
    private readonly holds: HoldsRepository,
    private readonly clock: BusinessClock,
  ) {}

  @OnJob(JobName.HoldExpire)
  async run(job: Job<HoldExpirePayload>): Promise<'expired' | 'settled'> {
    const { holdId, expiresAt, tenantId, mode } = job.data;
    const scope: TenantScope = { tenantId, mode };
    const dueAt = Date.parse(expiresAt);
    const now = await this.clock.nowMs(scope);
    if (dueAt > now) throw new JobNotReadyError(dueAt - now);
    return (await this.holds.expireIfDue(scope, holdId, new Date(now))) ? 'expired' : 'settled';
  }
}
