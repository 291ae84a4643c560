import { Check, Column, Entity, Index } from 'typeorm';
import { References } from '../../../../database/references';
import { TenantOwnedEntity } from '../../../../database/tenant-owned.entity';
import { InstantColumn } from '../../../../database/instant-column';

export const REMINDER_STATUSES = ['scheduled', 'sent', 'skipped', 'suppressed', 'cancelled', 'failed'] as const;
export type ReminderStatus = (typeof REMINDER_STATUSES)[number];

/**
 * One reminder of one appointment, planned from a rule of its type. Only a `scheduled` row is ever sent:
 * the send job claims it (row lock), queues its message and settles it in one transaction.
 */
@Entity('appointment_reminders')
@Index('IDX_APPOINTMENT_REMINDERS_TENANT_MODE_APPOINTMENT', ['tenantId', 'mode', 'appointmentId', 'sendAt', 'id'])
@Check(`"channel" IN ('email', 'sms')`)
@Check(`"offset_minutes" BETWEEN 1 AND 43200`)
@Check(`"status" IN ('scheduled', 'sent', 'skipped', 'suppressed', 'cancelled', 'failed')`)
export class AppointmentReminderEntity extends TenantOwnedEntity {
  @Column('uuid')
  appointmentId!: string;

  @References('AppointmentEntity', 'appointment_id', 'CASCADE')
  readonly appointmentFk?: never;

  @Column({ type: 'varchar', length: 5 })
  channel!: 'email' | 'sms';

  @Column({ type: 'integer' })
  offsetMinutes!: number;

  /** An email or SMS template (by channel); a template deleted before the send makes the reminder `failed`. */
  @Column('uuid')
  templateId!: string;

  @InstantColumn()
  sendAt!: Date;

  @Column({ type: 'varchar', length: 10 })
  status!: ReminderStatus;

  @Column({ type: 'varchar', length: 200, nullable: true })
  reason!: string | null;

  /** The email or SMS message it queued. */
  @Column({ type: 'uuid', nullable: true })
  messageId!: string | null;
}
