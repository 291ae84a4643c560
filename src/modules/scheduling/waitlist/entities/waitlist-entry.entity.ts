import { Check, Column, Entity, Index } from 'typeorm';
import { References } from '../../../../database/references';
import { TenantOwnedEntity } from '../../../../database/tenant-owned.entity';

export const WAITLIST_ENTRY_STATUSES = ['waiting', 'offered', 'booked', 'cancelled', 'expired'] as const;
export type WaitlistEntryStatus = (typeof WAITLIST_ENTRY_STATUSES)[number];

/** A time of the week the patient can come, in the provider's local time; weekday 1 (Monday) to 7. */
export interface WaitlistWindow {
  weekday: number;
  start: string;
  end: string;
}

/**
 * A patient waiting for a slot of a type (or an earlier one than `appointmentId`'s). While `waiting` a
 * freeing of fitting time offers it a slot; while `offered` it holds one (its pending offer).
 */
@Entity('waitlist_entries')
@Index('UQ_WAITLIST_ENTRIES_ACTIVE', ['tenantId', 'mode', 'patientId', 'appointmentTypeId'], {
  unique: true,
  where: `status IN ('waiting', 'offered')`,
})
@Index('IDX_WAITLIST_ENTRIES_WAITING', ['tenantId', 'mode', 'createdAt', 'id'], { where: `status = 'waiting'` })
@Index('IDX_WAITLIST_ENTRIES_TENANT_MODE_CREATED', ['tenantId', 'mode', 'createdAt', 'id'])
@Check(`"status" IN ('waiting', 'offered', 'booked', 'cancelled', 'expired')`)
export class WaitlistEntryEntity extends TenantOwnedEntity {
  @Column('uuid')
  patientId!: string;

  @References('PatientEntity', 'patient_id', 'CASCADE')
  readonly patientFk?: never;

  @Column('uuid')
  appointmentTypeId!: string;

  @References('AppointmentTypeEntity', 'appointment_type_id')
  readonly appointmentTypeFk?: never;

  /** Empty: any provider who offers the type. */
  @Column({ type: 'uuid', array: true, default: () => "'{}'" })
  providerIds!: string[];

  /** Local dates (YYYY-MM-DD) in the provider's timezone. */
  @Column({ type: 'date', nullable: true })
  earliestDate!: string | null;

  @Column({ type: 'date', nullable: true })
  latestDate!: string | null;

  /** Empty: any time. */
  @Column({ type: 'jsonb', default: () => "'[]'" })
  windows!: WaitlistWindow[];

  /** The patient's current booking, moved to the slot they accept. */
  @Column({ type: 'uuid', nullable: true })
  appointmentId!: string | null;

  @References('AppointmentEntity', 'appointment_id', 'SET NULL')
  readonly appointmentFk?: never;

  @Column({ type: 'varchar', length: 9 })
  status!: WaitlistEntryStatus;
}
