/**
 * Every event type the API emits (docs/api.md, Events). A module adds its type here, then records it in
 * the transaction of its change with `events.record(auth, 'its.type', dto, tx)`.
 */
export const EVENT_TYPES = [
  'patient.created',
  'patient.updated',
  'appointment.booked',
  'appointment.updated',
  'appointment.confirmed',
  'appointment.cancelled',
  'appointment.rescheduled',
  'appointment.no_show',
  'series.created',
  'series.updated',
  'series.cancelled',
  'form.submitted',
  'email.sent',
  'email.failed',
  'sequence.enrollment.created',
  'sequence.enrollment.completed',
  'sms.sent',
  'sms.delivered',
  'sms.failed',
  'sms.opted_out',
  'reminder.sent',
  'waitlist.offered',
  'waitlist.accepted',
  'waitlist.declined',
  'waitlist.expired',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Sent by POST /webhooks/{id}/test to that endpoint only; no endpoint subscribes to it. */
export const TEST_EVENT_TYPE = 'webhook.test';
export type AnyEventType = EventType | typeof TEST_EVENT_TYPE;
