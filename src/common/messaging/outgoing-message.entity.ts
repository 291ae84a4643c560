import { Column } from 'typeorm';
import { References } from '../../database/references';
import { TenantOwnedEntity } from '../../database/tenant-owned.entity';
import type { MessageKind } from './delivery';
import { InstantColumn } from '../../database/instant-column';

/**
 * What every outgoing message (email, SMS) records: what it is for (`kind`), the patient, appointment and
 * template it came from, its status and transport, and its tries. A subclass names its table, its statuses' CHECK, its template's table
 * (`@References(…, 'template_id', 'SET NULL')`) and its own columns.
 */
export abstract class OutgoingMessageEntity<S extends string = string, T extends string = string> extends TenantOwnedEntity {
  @Column({ type: 'uuid', nullable: true })
  patientId!: string | null;

  @References('PatientEntity', 'patient_id', 'SET NULL')
  readonly patientFk?: never;

  @Column({ type: 'varchar', length: 16, default: 'send' })
  kind!: MessageKind;

  /** The appointment a reminder or booking notice is about. */
  @Column({ type: 'uuid', nullable: true })
  appointmentId!: string | null;

  @References('AppointmentEntity', 'appointment_id', 'SET NULL')
  readonly appointmentFk?: never;

  @Column({ type: 'uuid', nullable: true })
  templateId!: string | null;

  @Column({ type: 'varchar', length: 16 })
  status!: S;

  @Column({ type: 'varchar', length: 8, nullable: true })
  transport!: T | null;

  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  @Column({ type: 'varchar', length: 500, nullable: true })
  lastError!: string | null;

  @InstantColumn({ nullable: true })
  sentAt!: Date | null;

  /** When the message is due (again): its send job's next try. */
  @InstantColumn()
  nextAttemptAt!: Date;
}
