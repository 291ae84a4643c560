import { Check, Column, Entity, Index } from 'typeorm';
import { References } from '../../../../database/references';
import { TenantOwnedEntity } from '../../../../database/tenant-owned.entity';

export const SERIES_STATUSES = ['active', 'cancelled'] as const;
export type SeriesStatus = (typeof SERIES_STATUSES)[number];

/** Why an occurrence was not booked: the booking rule that refused it. */
export const CONFLICT_REASONS = ['overlap', 'outside_working_hours', 'time_off', 'policy'] as const;
export type ConflictReason = (typeof CONFLICT_REASONS)[number];

/**
 * What became of one occurrence when the series was made: the appointment it booked (whose own row then
 * says where and in what state it is), or why it was skipped.
 */
export interface StoredOccurrence {
  index: number;
  datetime: string;
  appointmentId: string | null;
  reason: ConflictReason | null;
}

/**
 * A recurring series: its rule as written (a start in local time, the zone it is read in, an RRULE subset
 * and exdates) and the outcome of each occurrence. The appointments are ordinary ones that name the series.
 */
@Entity('appointment_series')
@Index('IDX_APPOINTMENT_SERIES_TENANT_MODE_CREATED', ['tenantId', 'mode', 'createdAt', 'id'])
@Index('IDX_APPOINTMENT_SERIES_TENANT_MODE_PATIENT_CREATED', ['tenantId', 'mode', 'patientId', 'createdAt', 'id'])
@Check(`"duration" BETWEEN 5 AND 480`)
@Check(`"status" IN ('active', 'cancelled')`)
export class AppointmentSeriesEntity extends TenantOwnedEntity {
  @Column('uuid')
  patientId!: string;

  @References('PatientEntity', 'patient_id', 'CASCADE')
  readonly patientFk?: never;

  @Column('uuid')
  providerId!: string;

  @References('ProviderEntity', 'provider_id')
  readonly providerFk?: never;

  @Column({ type: 'uuid', nullable: true })
  appointmentTypeId!: string | null;

  @References('AppointmentTypeEntity', 'appointment_type_id')
  readonly appointmentTypeFk?: never;

  /** Minutes: the type's when booked with one. */
  @Column({ type: 'integer' })
  duration!: number;

  @Column({ type: 'varchar', length: 64 })
  timezone!: string;

  /** `YYYY-MM-DDTHH:MM`, wall-clock time in `timezone`. */
  @Column({ name: 'start_local', type: 'varchar', length: 16 })
  start!: string;

  @Column({ type: 'varchar', length: 500 })
  rrule!: string;

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  exdates!: string[];

  @Column({ type: 'varchar', length: 10 })
  status!: SeriesStatus;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  occurrences!: StoredOccurrence[];

  /** Booked with overridePolicies: its occurrences move under the same lifted policies. */
  @Column({ type: 'boolean', default: false })
  overridePolicies!: boolean;

  @Column({ type: 'text', nullable: true })
  notes!: string | null;
}
