import { Check, Column, Entity, Index } from 'typeorm';
import { TenantOwnedEntity } from '../../../../database/tenant-owned.entity';
import type { SequenceStatus, SequenceStep } from '../sequence-rules';

/** A drip campaign: email templates sent one after another, each after its delay. */
@Entity('email_sequences')
@Check(`"status" IN ('draft', 'active', 'paused', 'archived')`)
@Index('IDX_EMAIL_SEQUENCES_TENANT_MODE_CREATED', ['tenantId', 'mode', 'createdAt', 'id'])
export class EmailSequenceEntity extends TenantOwnedEntity {
  @Column({ type: 'varchar', length: 200 })
  name!: string;

  @Column({ type: 'varchar', length: 2000, nullable: true })
  description!: string | null;

  @Column({ type: 'varchar', length: 16 })
  status!: SequenceStatus;

  /** `[{ templateId, delayMinutes }]`; the templates are checked to be the tenant's when written. */
  @Column({ type: 'jsonb' })
  steps!: SequenceStep[];

  /** Incremented by the statement of the enrolment's transaction, by the number of rows it inserted. */
  @Column({ type: 'integer', default: 0 })
  enrollmentCount!: number;
}
