import { DateTime } from 'luxon';
import type { NoticeEvent } from '../appointment-types/entities/appointment-type.entity';

/**
 * What a notice's template sees besides the reminder context, as `{{notice.*}}`: what happened, the
 * practice's name, and when in words in the provider's zone (named), before and after a move.
 */
export interface NoticeVariables {
  event: NoticeEvent;
  practiceName: string;
  /** `Tuesday, 3 March 2026 at 09:30 (Europe/London)`. */
  when: string;
  /** `Tue 3 Mar 09:30 (Europe/London)`, for texts. */
  shortWhen: string;
  /** A move's former time, as `when`; null otherwise. */
  previousWhen: string | null;
}

export function noticeVariables(
  event: NoticeEvent,
  practiceName: string,
  start: Date,
  previousStart: Date | null,
  zone: string,
): NoticeVariables {
  return {
    event,
    practiceName,
    when: longWhen(start, zone),
    shortWhen: `${DateTime.fromJSDate(start, { zone }).setLocale('en-GB').toFormat('ccc d LLL HH:mm')} (${zone})`,
    previousWhen: previousStart ? longWhen(previousStart, zone) : null,
  };
}

function longWhen(instant: Date, zone: string): string {
  return `${DateTime.fromJSDate(instant, { zone }).setLocale('en-GB').toFormat("cccc, d LLLL yyyy 'at' HH:mm")} (${zone})`;
}

const WITH = '{{#if appointment.typeName}}{{appointment.typeName}} {{/if}}appointment with {{appointment.providerName}}';

/** What happened, in a sentence of the built-in email (a template source: values are filled in and escaped by the renderer). */
const SENTENCES: Record<NoticeEvent, string> = {
  booked: `Your ${WITH} at {{notice.practiceName}} is booked for {{notice.when}}.`,
  rescheduled: `Your ${WITH} at {{notice.practiceName}} has moved from {{notice.previousWhen}} to {{notice.when}}.`,
  cancelled: `Your ${WITH} at {{notice.practiceName}} on {{notice.when}} is cancelled.`,
};

const SUBJECTS: Record<NoticeEvent, string> = {
  booked: 'Booked: {{appointment.providerName}}, {{notice.when}}',
  rescheduled: 'Moved to {{notice.when}}: {{appointment.providerName}}',
  cancelled: 'Cancelled: {{appointment.providerName}}, {{notice.when}}',
};

const LINKS: Record<NoticeEvent, string> = {
  booked: 'To see, move or cancel it:',
  rescheduled: 'To see, move or cancel it:',
  cancelled: 'The appointment:',
};

/** The built-in email of a notice, as template sources rendered with the reminder context and `notice`. */
export function builtInNoticeEmail(event: NoticeEvent): { subject: string; htmlContent: string; textContent: string } {
  return {
    subject: SUBJECTS[event],
    textContent: `Hello {{patient.firstName}},\n\n${SENTENCES[event]}\n\n${LINKS[event]} {{appointment.manageUrl}}\n\n{{notice.practiceName}}\n`,
    htmlContent:
      `<p>Hello {{patient.firstName}},</p>\n<p>${SENTENCES[event]}</p>\n` +
      `<p>${LINKS[event]} <a href="{{appointment.manageUrl}}">{{appointment.manageUrl}}</a></p>\n<p>{{notice.practiceName}}</p>\n`,
  };
}

const TEXTS: Record<NoticeEvent, string> = {
  booked: '{{notice.practiceName}}: booked with {{appointment.providerName}}, {{notice.shortWhen}}. Manage: {{appointment.manageUrl}}',
  rescheduled:
    '{{notice.practiceName}}: moved to {{notice.shortWhen}}, with {{appointment.providerName}}. Manage: {{appointment.manageUrl}}',
  cancelled: '{{notice.practiceName}}: cancelled, {{appointment.providerName}} {{notice.shortWhen}}. {{appointment.manageUrl}}',
};

/** The built-in text of a notice's SMS: short, with the manage link. */
export function builtInNoticeSms(event: NoticeEvent): string {
  return TEXTS[event];
}
