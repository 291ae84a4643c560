import { Check, Column, Entity, Index } from 'typeorm';
import { References } from '../../../../database/references';
import { TenantOwnedEntity } from '../../../../database/tenant-owned.entity';
import type { EnrollmentStatus } from '../sequence-rules';
import { InstantColumn } from '../../../../database/instant-column';

/** One patient walking one sequence: which step comes next, and when. */
@Entity('email_sequence_enrollments')
@Check(`"status" IN ('active', 'completed', 'cancelled', 'failed')`)
@Index('UQ_EMAIL_SEQUENCE_ENROLLMENTS_SEQUENCE_PATIENT', ['tenantId', 'mode', 'sequenceId', 'patientId'], { unique: true })
@Index('IDX_EMAIL_SEQUENCE_ENROLLMENTS_SEQUENCE_CREATED', ['tenantId', 'mode', 'sequenceId', 'createdAt', 'id'])
@Index('IDX_EMAIL_SEQUENCE_ENROLLMENTS_DUE', ['nextStepAt'], { where: `status = 'active'` })
export class SequenceEnrollmentEntity extends TenantOwnedEntity {
  @Column('uuid')
  sequenceId!: string;

  @References('EmailSequenceEntity', 'sequence_id', 'CASCADE')
  readonly sequenceFk?: never;

  @Column('uuid')
  patientId!: string;

  @References('PatientEntity', 'patient_id', 'CASCADE')
  readonly patientFk?: never;

  @Column({ type: 'varchar', length: 16 })
  status!: EnrollmentStatus;

  /** The step to run next (0-based); the number of steps once completed. */
  @Column({ type: 'integer' })
  currentStep!: number;

  /** When the current step is due; null once the enrolment has ended. */
  @InstantColumn({ nullable: true })
  nextStepAt!: Date | null;

  /** The message the last step queued. */
  @Column({ type: 'uuid', nullable: true })
  lastMessageId!: string | null;

  /** Why a cancelled or failed enrolment ended. */
  @Column({ type: 'varchar', length: 500, nullable: true })
  endedReason!: string | null;

  @InstantColumn({ nullable: true })
  endedAt!: Date | null;
}
