import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { InstantColumn } from '../../../database/instant-column';

/**
 * A job to add once the transaction that recorded it has committed (see JobOutbox). Not tenant-owned: the
 * payload names its tenant and mode, as every job's does, and the relay serves every tenant.
 */
@Entity('job_outbox')
@Index('IDX_JOB_OUTBOX_AVAILABLE', ['prefix', 'availableAt', 'id'], { where: 'added_at IS NULL' })
@Index('IDX_JOB_OUTBOX_JOB', ['prefix', 'jobId'])
@Index('IDX_JOB_OUTBOX_CLOCK', ['clockTenantId', 'runAt'], { where: 'clock_tenant_id IS NOT NULL' })
export class OutboxJobEntity {
  /** A UUIDv7: the relay adds jobs in the order they were recorded. */
  @PrimaryColumn('uuid')
  id!: string;

  /** The REDIS_PREFIX of the queues it goes to: only relays of the same queues take it. */
  @Column({ type: 'varchar', length: 200 })
  prefix!: string;

  @Column({ type: 'varchar', length: 64 })
  name!: string;

  /** The BullMQ job id (`options.jobId`): the row goes when that job has finished for good. */
  @Column({ type: 'varchar', length: 200 })
  jobId!: string;

  @Column({ type: 'jsonb' })
  payload!: Record<string, unknown>;

  /** BullMQ options besides the delay: jobId, and attempts/backoff where the job overrides its queue. */
  @Column({ type: 'jsonb' })
  options!: Record<string, unknown>;

  /** When the job is due (a delayed job); null: at once. */
  @InstantColumn({ nullable: true })
  runAt!: Date | null;

  /** The tenant on whose test clock `runAt` is read (a test-mode reminder or sequence step); null: real time. */
  @Column({ type: 'uuid', nullable: true })
  clockTenantId!: string | null;

  /** From when a relay may take the row: after the recording process's own try, or a relay's lease. */
  @InstantColumn()
  availableAt!: Date;

  /** When Redis accepted its job; null until then, and again once Redis is found to have lost it. */
  @InstantColumn({ nullable: true })
  addedAt!: Date | null;
}
