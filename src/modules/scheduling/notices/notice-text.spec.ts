import { DateTime } from 'luxon';
import { renderTemplate } from '../../../common/templates/template-renderer';
import { clock } from '../../../common/time/clock';
import { buildTemplateContext } from '../../templates';
import { builtInNoticeEmail, builtInNoticeSms, noticeVariables } from './notice-text';

const ZONE = 'America/New_York';
const MANAGE_URL = 'https://api.acmeclinic.com/api/v1/public/appointments/7kQ2xVb9LmN4pR8s';

/** A start derived from now (a Tuesday 15:00 in New York some weeks ahead), never a calendar date. */
const start = DateTime.fromMillis(clock.nowMs(), { zone: ZONE })
  .plus({ weeks: 5 })
  .set({ weekday: 2, hour: 15, minute: 0, second: 0, millisecond: 0 });

function contextFor(event: 'booked' | 'rescheduled' | 'cancelled', typeName: string | null = 'Check-up') {
  const previous = event === 'rescheduled' ? start.minus({ days: 1 }) : null;
  return buildTemplateContext({
    patient: { firstName: 'Grace <G>', lastName: 'Hopper' },
    practice: { name: 'Acme Clinic' },
    appointment: {
      datetime: start.toUTC().toISO()!,
      localDate: start.toISODate()!,
      localTime: '15:00',
      timezone: ZONE,
      durationMinutes: 30,
      providerName: 'Dr. Ada Lovelace',
      typeName,
      manageUrl: MANAGE_URL,
    },
    variables: { notice: noticeVariables(event, 'Acme Clinic', start.toJSDate(), previous?.toJSDate() ?? null, ZONE) },
  });
}

describe('booking notice texts', () => {
  it('name the time in the provider’s zone, in words and short', () => {
    const vars = noticeVariables('rescheduled', 'Acme Clinic', start.toJSDate(), start.minus({ days: 1 }).toJSDate(), ZONE);
    expect(vars.when).toBe(`Tuesday, ${start.toFormat('d LLLL yyyy')} at 15:00 (${ZONE})`);
    expect(vars.shortWhen).toBe(`Tue ${start.toFormat('d LLL')} 15:00 (${ZONE})`);
    expect(vars.previousWhen).toBe(`Monday, ${start.minus({ days: 1 }).toFormat('d LLLL yyyy')} at 15:00 (${ZONE})`);
    expect(noticeVariables('booked', 'Acme Clinic', start.toJSDate(), null, ZONE).previousWhen).toBeNull();
  });

  it.each(['booked', 'rescheduled', 'cancelled'] as const)('say what happened, when and with whom, with the manage link (%s)', (event) => {
    const context = contextFor(event);
    const email = builtInNoticeEmail(event);
    const text = renderTemplate(email.textContent, 'text', context);
    const html = renderTemplate(email.htmlContent, 'html', context);
    expect(renderTemplate(email.subject, 'text', context)).toContain('Dr. Ada Lovelace');
    expect(text).toContain('Check-up appointment with Dr. Ada Lovelace at Acme Clinic');
    expect(text).toContain(`(${ZONE})`);
    expect(text).toContain(MANAGE_URL);
    expect(text).toContain('Hello Grace <G>,');
    // The patient wrote their own name: escaped in the HTML part.
    expect(html).toContain('Hello Grace &lt;G&gt;,');
    expect(html).toContain(`<a href="${MANAGE_URL}">`);
    expect(text).toContain({ booked: 'is booked for', rescheduled: 'has moved from', cancelled: 'is cancelled' }[event]);

    const sms = renderTemplate(builtInNoticeSms(event), 'text', context);
    expect(sms.endsWith(MANAGE_URL)).toBe(true);
    // One segment of plain GSM-7 text, link included.
    expect(sms).toMatch(/^[\x20-\x7e]{1,160}$/);
  });

  it('leave the type out when the appointment has none', () => {
    const text = renderTemplate(builtInNoticeEmail('booked').textContent, 'text', contextFor('booked', null));
    expect(text).toContain('Your appointment with Dr. Ada Lovelace at Acme Clinic is booked for');
  });
});
