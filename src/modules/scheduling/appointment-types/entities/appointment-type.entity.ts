import { Check, Column, Entity, Index } from 'typeorm';
import { TenantOwnedEntity } from '../../../../database/tenant-owned.entity';

/** What a reminder of an appointment of this type sends, and when (minutes before its start). */
export interface ReminderRule {
  offsetMinutes: number;
  channel: 'email' | 'sms';
  templateId: string;
}

/** The changes of an appointment a booking notice tells the patient of. */
export const NOTICE_EVENTS = ['booked', 'rescheduled', 'cancelled'] as const;
export type NoticeEvent = (typeof NOTICE_EVENTS)[number];

export const NOTICE_CHANNELS = ['email', 'sms'] as const;
export type NoticeChannel = (typeof NOTICE_CHANNELS)[number];

/** The email template that replaces a notice's built-in text, per change; a change without one uses the built-in text. */
export type NoticeTemplates = Partial<Record<NoticeEvent, string>>;

/**
 * A kind of appointment with its booking policies: length, buffers around it, minimum notice, booking
 * horizon, slot grid, a daily cap per provider, the window after which a patient can no longer change it,
 * the providers who offer it, its reminders and its booking notices. Appointments name their type, so that each keeps its own
 * buffers when others are booked around it.
 */
@Entity('appointment_types')
@Index('IDX_APPOINTMENT_TYPES_TENANT_MODE_CREATED', ['tenantId', 'mode', 'createdAt', 'id'])
@Check(`"duration_minutes" BETWEEN 5 AND 480`)
@Check(`"buffer_before_minutes" BETWEEN 0 AND 240`)
@Check(`"buffer_after_minutes" BETWEEN 0 AND 240`)
@Check(`"minimum_notice_minutes" BETWEEN 0 AND 43200`)
@Check(`"booking_horizon_days" BETWEEN 1 AND 730`)
@Check(`"slot_interval_minutes" BETWEEN 5 AND 240`)
@Check(`"max_per_day_per_provider" BETWEEN 1 AND 100`)
@Check(`"cancellation_window_minutes" BETWEEN 0 AND 43200`)
@Check(`"waitlist_offer_minutes" BETWEEN 5 AND 1440`)
export class AppointmentTypeEntity extends TenantOwnedEntity {
  @Column({ type: 'varchar', length: 100 })
  name!: string;

  @Column({ type: 'integer' })
  durationMinutes!: number;

  @Column({ type: 'integer', default: 0 })
  bufferBeforeMinutes!: number;

  @Column({ type: 'integer', default: 0 })
  bufferAfterMinutes!: number;

  @Column({ type: 'integer', default: 0 })
  minimumNoticeMinutes!: number;

  @Column({ type: 'integer', default: 365 })
  bookingHorizonDays!: number;

  @Column({ type: 'integer' })
  slotIntervalMinutes!: number;

  @Column({ type: 'integer', nullable: true })
  maxPerDayPerProvider!: number | null;

  @Column({ type: 'integer', default: 1440 })
  cancellationWindowMinutes!: number;

  @Column({ type: 'integer', default: 60 })
  waitlistOfferMinutes!: number;

  /** Providers of the same tenant and mode, checked when written; empty: every active provider. */
  @Column({ type: 'uuid', array: true, default: () => "'{}'" })
  providerIds!: string[];

  @Column({ type: 'jsonb', default: () => "'[]'" })
  reminders!: ReminderRule[];

  @Column({ type: 'boolean', default: true })
  isActive!: boolean;

  @Column({ type: 'boolean', default: true })
  noticeBooked!: boolean;

  @Column({ type: 'boolean', default: true })
  noticeRescheduled!: boolean;

  @Column({ type: 'boolean', default: true })
  noticeCancelled!: boolean;

  @Column({ type: 'jsonb', default: () => `'["email"]'` })
  noticeChannels!: NoticeChannel[];

  @Column({ type: 'jsonb', default: () => "'{}'" })
  noticeTemplates!: NoticeTemplates;
}
