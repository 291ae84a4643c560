import { Check, Column, Entity, Exclusion, Index } from 'typeorm';
import { References } from '../../../../database/references';
import { ProviderSpan } from '../../provider-span';
import type { AppointmentStatus } from '../transitions';
import { InstantColumn } from '../../../../database/instant-column';

/**
 * A booked appointment. The exclusion constraint is the rule that matters: no two active (scheduled or
 * confirmed) appointments of one provider overlap, whatever races the application loses.
 */
@Entity('appointments')
@Index('IDX_APPOINTMENTS_TENANT_MODE_STARTS', ['tenantId', 'mode', 'startsAt', 'id'])
@Index('IDX_APPOINTMENTS_TENANT_MODE_PROVIDER_STARTS', ['tenantId', 'mode', 'providerId', 'startsAt'])
@Index('IDX_APPOINTMENTS_TENANT_MODE_PATIENT_STARTS', ['tenantId', 'mode', 'patientId', 'startsAt'])
@Index('IDX_APPOINTMENTS_TENANT_MODE_STATUS_STARTS', ['tenantId', 'mode', 'status', 'startsAt', 'id'])
@Index('UQ_APPOINTMENTS_MANAGE_ID', ['manageId'], { unique: true })
@Index('IDX_APPOINTMENTS_TENANT_MODE_SERIES', ['tenantId', 'mode', 'seriesId', 'startsAt'], { where: '"series_id" IS NOT NULL' })
@Exclusion(
  'EX_APPOINTMENTS_PROVIDER_ACTIVE_TIME',
  `USING gist (provider_id WITH =, tstzrange(starts_at, ends_at, '[)') WITH &&) WHERE (status IN ('scheduled', 'confirmed'))`,
)
@Check(`"ends_at" > "starts_at"`)
@Check(`"duration" BETWEEN 5 AND 480`)
@Check(`"status" IN ('scheduled', 'confirmed', 'completed', 'cancelled', 'no_show')`)
export class AppointmentEntity extends ProviderSpan {
  @Column('uuid')
  patientId!: string;

  @References('PatientEntity', 'patient_id', 'CASCADE')
  readonly patientFk?: never;

  @Column({ type: 'varchar', length: 10 })
  status!: AppointmentStatus;

  @Column({ type: 'varchar', length: 100, nullable: true })
  type!: string | null;

  @Column({ type: 'text', nullable: true })
  notes!: string | null;

  /** The type it was booked as; null for one booked with a bare duration (it then has no buffers). */
  @Column({ type: 'uuid', nullable: true })
  appointmentTypeId!: string | null;

  @References('AppointmentTypeEntity', 'appointment_type_id')
  readonly appointmentTypeFk?: never;

  @InstantColumn({ nullable: true })
  confirmedAt!: Date | null;

  @InstantColumn({ nullable: true })
  cancelledAt!: Date | null;

  /**
   * The id of the patient's manage link (`/public/appointments/{manageId}`): random, set at booking and never
   * changed, unique across tenants because the link alone names the appointment.
   */
  @Column({ type: 'varchar', length: 16 })
  manageId!: string;

  /** The recurring series it is an occurrence of; null for a single booking. */
  @Column({ type: 'uuid', nullable: true })
  seriesId!: string | null;

  @References('AppointmentSeriesEntity', 'series_id')
  readonly seriesFk?: never;
}
