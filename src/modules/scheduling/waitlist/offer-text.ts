import { DateTime } from 'luxon';

/** What a waitlist offer's message sees besides the reminder context, as `{{offer.*}}`. */
export interface OfferVariables {
  url: string;
  practiceName: string;
  /** `Tuesday, 3 March 2026 at 09:30 (Europe/London)`. */
  when: string;
  /** `Tue 3 Mar 09:30`, for texts. */
  shortWhen: string;
  /** Until when the slot is kept, as `shortWhen`. */
  until: string;
}

export function offerVariables(url: string, practiceName: string, start: Date, expiresAt: Date, zone: string): OfferVariables {
  const short = (instant: Date): string => DateTime.fromJSDate(instant, { zone }).setLocale('en-GB').toFormat('ccc d LLL HH:mm');
  return {
    url,
    practiceName,
    when: `${DateTime.fromJSDate(start, { zone }).setLocale('en-GB').toFormat("cccc, d LLLL yyyy 'at' HH:mm")} (${zone})`,
    shortWhen: short(start),
    until: `${short(expiresAt)} (${zone})`,
  };
}

const WITH = '{{#if appointment.typeName}}{{appointment.typeName}} {{/if}}appointment with {{appointment.providerName}}';

/** The offer's email, as template sources rendered with the reminder context and `offer` (values escaped by the renderer). */
export function offerEmail(): { subject: string; htmlContent: string; textContent: string } {
  const sentence = `An earlier time is free at {{offer.practiceName}}: a ${WITH} on {{offer.when}}. We keep it for you until {{offer.until}}.`;
  return {
    subject: 'An earlier time is free: {{offer.when}}',
    textContent: `Hello {{patient.firstName}},\n\n${sentence}\n\nTo take it or let it go: {{offer.url}}\n\n{{offer.practiceName}}\n`,
    htmlContent:
      `<p>Hello {{patient.firstName}},</p>\n<p>${sentence}</p>\n` +
      `<p>To take it or let it go: <a href="{{offer.url}}">{{offer.url}}</a></p>\n<p>{{offer.practiceName}}</p>\n`,
  };
}

/** The offer's SMS: short, with the link. */
export function offerSms(): string {
  return '{{offer.practiceName}}: an earlier time is free, {{offer.shortWhen}} with {{appointment.providerName}}. Kept until {{offer.until}}: {{offer.url}}';
}
