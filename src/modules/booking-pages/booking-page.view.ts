import { DateTime } from 'luxon';
import type { FieldError } from '../../common/http/errors/problem';
import { html, htmlPage, PageBrand, SafeHtml } from '../../common/http/responses/html-page';

/** What every step of the booking page shows of the page itself. */
export interface PageHeading {
  /** The page's path, `/api/v1/public/schedulers/{id}`: every link and form of the page starts there. */
  path: string;
  name: string;
  description: string | null;
  duration: number;
  type: string | null;
}

export interface PageProvider {
  id: string;
  name: string;
  timezone: string;
}

export interface TimesView {
  heading: PageHeading;
  providers: PageProvider[];
  provider: PageProvider;
  /** The first day shown (ISO date in the provider's timezone), and the first of the previous week when there is one. */
  from: string;
  earlier: string | null;
  later: string;
  /** Free starts (ISO instants), ascending. */
  slots: string[];
  /** Why the patient is back here (a time taken meanwhile, a hold that lapsed). */
  notice?: string;
}

/** The details form's fields as the patient typed them. */
export type DetailsValues = Partial<Record<'firstName' | 'lastName' | 'email' | 'phone', string>>;

export interface DetailsView {
  heading: PageHeading;
  provider: PageProvider;
  start: string;
  holdId: string;
  /** When the hold lapses (ISO instant). */
  heldUntil: string;
  requirePhone: boolean;
  values: DetailsValues;
  errors: FieldError[];
}

export interface ConfirmationView {
  heading: PageHeading;
  provider: Omit<PageProvider, 'id'>;
  start: string;
  manageUrl: string;
}

/** How long a day's times are shown from: a week at a time. */
export const DAYS_SHOWN = 7;
const LOCALE = 'en-GB';

const when = (start: string, zone: string): DateTime => DateTime.fromISO(start, { zone }).setLocale(LOCALE);
const dayLabel = (day: DateTime): string => day.toFormat('cccc d LLLL');
const timeLabel = (at: DateTime): string => at.toFormat('HH:mm');
/** "Tuesday 8 December 2026, 10:00 (Europe/London)": a time as the patient reads it, its timezone named. */
export const longWhen = (start: string, zone: string): string => `${when(start, zone).toFormat('cccc d LLLL yyyy, HH:mm')} (${zone})`;

function join(parts: SafeHtml[]): SafeHtml {
  return new SafeHtml(parts.map((p) => p.value).join(''));
}

function headingOf(view: { heading: PageHeading }, title: string): SafeHtml {
  const { heading } = view;
  const facts = [`${heading.duration} minutes`, ...(heading.type ? [heading.type] : [])].join(' · ');
  return html`<h1>${title}</h1>
    <p><strong>${heading.name}</strong><br />${facts}</p>
    ${heading.description ? html`<p>${heading.description}</p>` : html``}`;
}

/** The page's first step: a provider choice when it has several, then free times by day, each a form that takes a hold. */
export function timesPage(brand: PageBrand, view: TimesView): string {
  const { heading, provider } = view;
  const link = (query: Record<string, string>): string => `${heading.path}?${new URLSearchParams(query).toString()}`;
  const choice =
    view.providers.length > 1
      ? html`<nav aria-label="Providers">
          <p>With:</p>
          <ul class="row">
            ${join(
              view.providers.map((p) =>
                p.id === provider.id
                  ? html`<li><strong aria-current="page">${p.name}</strong></li>`
                  : html`<li><a href="${link({ provider: p.id, from: view.from })}">${p.name}</a></li>`,
              ),
            )}
          </ul>
        </nav>`
      : html`<p>With ${provider.name}</p>`;
  const days = new Map<string, string[]>();
  for (const start of view.slots) {
    const day = when(start, provider.timezone).toISODate()!;
    days.set(day, [...(days.get(day) ?? []), start]);
  }
  const list = days.size
    ? join(
        [...days].map(
          ([day, starts]) =>
            html`<section>
              <h2>${dayLabel(DateTime.fromISO(day, { zone: provider.timezone }).setLocale(LOCALE))}</h2>
              <ul class="row">
                ${join(
                  starts.map(
                    (start) =>
                      html`<li>
                        <form method="post" action="${`${heading.path}/page/hold`}">
                          <input type="hidden" name="datetime" value="${start}" /><input
                            type="hidden"
                            name="providerId"
                            value="${provider.id}"
                          />
                          <button type="submit" data-slot="${start}" aria-label="${longWhen(start, provider.timezone)}">
                            ${timeLabel(when(start, provider.timezone))}
                          </button>
                        </form>
                      </li>`,
                  ),
                )}
              </ul>
            </section>`,
        ),
      )
    : html`<p>No free times in these ${String(DAYS_SHOWN)} days.</p>`;
  const pager = join([
    view.earlier ? html`<a href="${link({ provider: provider.id, from: view.earlier })}">Earlier dates</a> ` : html``,
    html`<a href="${link({ provider: provider.id, from: view.later })}">Later dates</a>`,
  ]);
  return htmlPage(
    `Book: ${heading.name}`,
    html`${headingOf(view, 'Book an appointment')} ${view.notice ? html`<p role="alert"><strong>${view.notice}</strong></p>` : html``}
      ${choice}
      <p>Times are in ${provider.timezone}. Pick one to hold it while you enter your details.</p>
      ${list}
      <p>${pager}</p>`,
    brand,
  );
}

const FIELDS: { name: keyof DetailsValues; label: string; type: string; autocomplete: string }[] = [
  { name: 'firstName', label: 'First name', type: 'text', autocomplete: 'given-name' },
  { name: 'lastName', label: 'Last name', type: 'text', autocomplete: 'family-name' },
  { name: 'email', label: 'Email', type: 'email', autocomplete: 'email' },
  { name: 'phone', label: 'Phone', type: 'tel', autocomplete: 'tel' },
];

/** The details form for a held time; a refused entry comes back with its message beside the field and every entry kept. */
export function detailsPage(brand: PageBrand, view: DetailsView): string {
  const messages = new Map(view.errors.map((e) => [e.field, e.message]));
  const fields = join(
    FIELDS.map((field) => {
      const required = field.name !== 'phone' || view.requirePhone;
      const message = messages.get(field.name);
      const id = `f-${field.name}`;
      const input = html`<input
        id="${id}"
        name="${field.name}"
        type="${field.type}"
        autocomplete="${field.autocomplete}"
        value="${view.values[field.name] ?? ''}"
        ${required ? html` required` : html``}${message ? html` aria-invalid="true" aria-describedby="${`${id}-error`}"` : html``}
      />`;
      return html`<p>
        <label for="${id}">${field.label}${required ? html`` : html` (optional)`}</label><br />${input}
        ${message ? html`<br /><span class="error" id="${`${id}-error`}" data-error-for="${field.name}">${field.label} ${message}</span>` : html``}
      </p>`;
    }),
  );
  const other = view.errors.filter((e) => !FIELDS.some((f) => f.name === e.field));
  return htmlPage(
    `Your details: ${view.heading.name}`,
    html`${headingOf(view, 'Your details')}
      <p>
        ${longWhen(view.start, view.provider.timezone)} with ${view.provider.name}.<br />
        We hold this time for you until ${timeLabel(when(view.heldUntil, view.provider.timezone))}.
      </p>
      ${other.length ? html`<p role="alert" class="error">${other.map((e) => `${e.field} ${e.message}`).join('; ')}</p>` : html``}
      <form method="post" action="${`${view.heading.path}/page/book`}" novalidate>
        <input type="hidden" name="holdId" value="${view.holdId}" />
        ${fields}
        <div class="hp" aria-hidden="true">
          <label for="f-website">Leave this empty</label
          ><input id="f-website" name="website" data-honeypot tabindex="-1" autocomplete="off" />
        </div>
        <p><button type="submit">Book</button></p>
      </form>
      <p><a href="${`${view.heading.path}?provider=${view.provider.id}`}">Pick another time</a></p>`,
    brand,
  );
}

/** The last step: what was booked, the calendar file and the patient's manage link. */
export function confirmationPage(brand: PageBrand, view: ConfirmationView): string {
  return htmlPage(
    `Booked: ${view.heading.name}`,
    html`${headingOf(view, 'You are booked')}
      <p role="status"><strong>${longWhen(view.start, view.provider.timezone)}</strong> with ${view.provider.name}.</p>
      <p><a href="${`${view.manageUrl}/calendar.ics`}" download>Add it to your calendar (.ics)</a></p>
      <p>
        To confirm, change or cancel it later, keep this link: <a data-manage-url href="${view.manageUrl}">manage your appointment</a>.
      </p>`,
    brand,
  );
}

/** What a form whose honeypot was filled in gets: a plain acknowledgement, nothing booked. */
export function receivedPage(brand: PageBrand): string {
  return htmlPage(
    'Thank you',
    html`<h1>Thank you</h1>
      <p>Your request was received.</p>`,
    brand,
  );
}
