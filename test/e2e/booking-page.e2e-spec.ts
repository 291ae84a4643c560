import type { BrowserContext, Page } from 'playwright-core';
import { call, client, createTenant, TestTenant } from '../helpers/app';
import { seriousViolations } from '../helpers/axe';
import { useBrowser } from '../helpers/browser';
import { NO_RATE_LIMITS } from '../helpers/patients';
import { freePort } from '../helpers/ports';
import { createProvider, createScheduler, everyDay, SCHEDULERS } from '../helpers/scheduling';
import { utcDate } from '../helpers/dates';
import { eventually } from '../helpers/eventually';
import { type ReceivedEmail, SmtpReceiver } from '../helpers/smtp-receiver';
import { useApp } from '../helpers/use-app';

const API_HOST = 'book.clinic.test';
const PHONE = { width: 360, height: 740 };
const HTML = { accept: 'text/html' };
/** Set (to a directory, e.g. docs/images) to save the pages as the docs show them. */
const SCREENSHOTS = process.env.BOOKING_PAGE_SCREENSHOTS;

interface Scheduler {
  id: string;
  bookingUrl: string;
  viewsCount: number;
  bookingsCount: number;
}

/**
 * The hosted booking page as a patient meets it, in a real headless Chromium at 360 px, with JavaScript on
 * and off: pick a time, enter details (a refused entry comes back beside its field), book, and open the
 * manage link from the confirmation. axe-core checks every step.
 */
describe('The hosted booking page', () => {
  const chromium = useBrowser([API_HOST]);
  let port: number;
  let tenant: TestTenant;
  let scheduler: Scheduler;
  let secondId: string;
  let receiver: SmtpReceiver;
  beforeAll(async () => {
    port = await freePort();
    receiver = await new SmtpReceiver().start();
  });
  afterAll(async () => receiver.stop());
  const suite = useApp(() => ({
    ...NO_RATE_LIMITS,
    RATE_LIMIT_IP_PER_SECOND: '0',
    RATE_LIMIT_IP_PER_HOUR: '0',
    SMTP_URL: receiver.url,
    PORT: String(port),
    PUBLIC_URL: `http://${API_HOST}:${port}`,
  }));
  beforeAll(async () => {
    await suite.app.listen({ port, host: '127.0.0.1' });
    tenant = await createTenant(suite.app, 'Riverside Physio');
    const owner = client(suite.app, tenant.liveKey);
    await owner.post('/api/v1/settings/brand', { primaryColor: '#0F766E' });
    const first = await createProvider(suite.app, tenant.liveKey, {
      name: 'Dr Ada Byron',
      timezone: 'Europe/London',
      workingHours: everyDay('08:00', '18:00'),
    });
    const second = await createProvider(suite.app, tenant.liveKey, {
      name: 'Dr Alan Turing',
      timezone: 'America/New_York',
      workingHours: everyDay('08:00', '18:00'),
    });
    secondId = second.id;
    scheduler = await createScheduler(suite.app, tenant.liveKey, [first.id, second.id], {
      name: 'First visit',
      description: 'A first assessment of 30 minutes.',
    });
  });

  const context = (javaScriptEnabled: boolean): Promise<BrowserContext> =>
    chromium.browser.newContext({ viewport: PHONE, javaScriptEnabled, bypassCSP: javaScriptEnabled });

  /** Waits for `count` emails to `address` at the receiver, and answers them. */
  const arrived = (address: string, count: number): Promise<ReceivedEmail[]> =>
    eventually(async () => {
      const mine = receiver.received.filter((m) => m.to.includes(address));
      expect(mine).toHaveLength(count);
      return mine;
    }, 20_000);

  /** Fails with the page's serious or critical axe-core violations (only where script runs), or if it is wider than a phone. */
  const accessible = async (page: Page, axe: boolean): Promise<void> => {
    if (axe) expect(await seriousViolations(page)).toEqual([]);
    // Readable at 360 px: nothing wider than the screen.
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
  };

  it.each([
    ['on', true],
    ['off', false],
  ])(
    'books a time from a phone with JavaScript %s, and opens the manage link',
    async (_, script) => {
      const browser = await context(script);
      try {
        const page = await browser.newPage();
        const opened = await page.goto(scheduler.bookingUrl);
        expect(opened?.status()).toBe(200);
        expect(await page.locator('header').innerText()).toContain('Riverside Physio');
        expect(await page.locator('h1').innerText()).toBe('Book an appointment');
        expect(await page.locator('main').innerText()).toContain('Times are in Europe/London');
        await accessible(page, script);
        if (SCREENSHOTS && script) {
          await page.screenshot({ path: `${SCREENSHOTS}/booking-page-360.png` });
          await page.setViewportSize({ width: 1280, height: 800 });
          await page.screenshot({ path: `${SCREENSHOTS}/booking-page-1280.png` });
          await page.setViewportSize(PHONE);
        }

        // The second provider's times, in its own timezone.
        await page.getByRole('link', { name: 'Dr Alan Turing' }).click();
        expect(await page.locator('main').innerText()).toContain('Times are in America/New_York');
        // A week on, beyond any window in which the manage link may no longer change it.
        await page.getByRole('link', { name: 'Later dates' }).click();
        expect(await page.getByRole('link', { name: 'Earlier dates' }).count()).toBe(1);
        const slot = page.locator('[data-slot]').nth(script ? 2 : 3);
        const start = await slot.getAttribute('data-slot');
        await slot.click();
        await page.waitForURL(/\/page\/hold$/);
        expect(await page.locator('h1').innerText()).toBe('Your details');
        await accessible(page, script);

        // A refused entry: the message beside the field, every entry kept.
        await page.locator('input[name="firstName"]').fill('Grace');
        await page.locator('input[name="email"]').fill('not an email');
        await page.getByRole('button', { name: 'Book' }).click();
        expect(await page.locator('[data-error-for="email"]').innerText()).toContain('must be an email address');
        expect(await page.locator('[data-error-for="lastName"]').innerText()).toContain('is required');
        expect(await page.locator('input[name="firstName"]').inputValue()).toBe('Grace');
        expect(await page.locator('input[name="email"]').inputValue()).toBe('not an email');
        await accessible(page, script);
        if (SCREENSHOTS && script) await page.screenshot({ path: `${SCREENSHOTS}/booking-details-360.png`, fullPage: true });

        await page.locator('input[name="lastName"]').fill('Hopper');
        const email = `grace.${script ? 'on' : 'off'}@example.com`;
        await page.locator('input[name="email"]').fill(email);
        await page.getByRole('button', { name: 'Book' }).click();
        expect(await page.locator('h1').innerText()).toBe('You are booked');
        const manageUrl = await page.locator('a[data-manage-url]').getAttribute('href');
        expect(manageUrl).toMatch(new RegExp(`^http://${API_HOST.replace(/\./g, '\\.')}:${port}/api/v1/public/appointments/`));
        expect(await page.locator(`a[href="${manageUrl}/calendar.ics"]`).count()).toBe(1);
        await accessible(page, script);
        if (SCREENSHOTS && script) await page.screenshot({ path: `${SCREENSHOTS}/booking-confirmation-360.png` });

        // The booking is the practice's, at the time picked, with the provider picked.
        const appointments = await client(suite.app, tenant.liveKey).get<{ appointments: { datetime: string }[] }>(
          `/api/v1/scheduling/appointments?providerId=${secondId}`,
        );
        expect(appointments.body.appointments.some((a) => Date.parse(a.datetime) === Date.parse(start!))).toBe(true);

        // The booking notice: at a real SMTP receiver, with the manage link and the calendar file.
        const [notice] = await arrived(email, 1);
        expect(notice.text).toContain(manageUrl);
        expect(notice.calendar?.contentType).toMatch(/^text\/calendar/);
        expect(notice.calendar?.body).toContain('METHOD:PUBLISH');

        await page.goto(manageUrl!);
        expect(await page.locator('header').innerText()).toContain('Riverside Physio');
        await accessible(page, script);
        await page.locator('form[action*="/reschedule"] button').first().click();
        expect(await page.locator('main').innerText()).toContain('Your appointment is moved.');
        await accessible(page, script);
        const [, moved] = await arrived(email, 2);
        expect(moved.headers.subject).toMatch(/^Moved to /);
        expect(moved.calendar?.body).toContain('METHOD:PUBLISH');
      } finally {
        await browser.close();
      }
    },
    90_000,
  );

  it('counts a view when opened, and a booking when booked; answers JSON to API clients as before', async () => {
    const before = (await client(suite.app, tenant.liveKey).get<Scheduler>(`${SCHEDULERS}/${scheduler.id}`)).body;
    const json = await client(suite.app).get<{ name: string }>(`/api/v1/public/schedulers/${scheduler.id}`);
    expect([json.status, json.body.name]).toEqual([200, 'First visit']);
    const page = await client(suite.app).get(`/api/v1/public/schedulers/${scheduler.id}`, HTML);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    // Moving through the days is not another view.
    await client(suite.app).get(`/api/v1/public/schedulers/${scheduler.id}?from=${utcDate(60)}`, HTML);
    const after = (await client(suite.app, tenant.liveKey).get<Scheduler>(`${SCHEDULERS}/${scheduler.id}`)).body;
    expect(after.viewsCount - before.viewsCount).toBe(2);
  });

  it('books nothing when the honeypot is filled in, and answers a plain acknowledgement', async () => {
    const before = (await client(suite.app, tenant.liveKey).get<Scheduler>(`${SCHEDULERS}/${scheduler.id}`)).body.bookingsCount;
    const form = new URLSearchParams({
      holdId: '',
      firstName: 'Bot',
      lastName: 'Net',
      email: 'bot@example.com',
      website: 'https://spam.example',
    });
    const res = await call(suite.app, 'POST', `/api/v1/public/schedulers/${scheduler.id}/page/book`, {
      rawBody: form.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...HTML },
    });
    expect([res.status, res.text.includes('Your request was received')]).toEqual([200, true]);
    const after = (await client(suite.app, tenant.liveKey).get<Scheduler>(`${SCHEDULERS}/${scheduler.id}`)).body.bookingsCount;
    expect(after).toBe(before);
  });

  it('holds a picked time away from the page, and sends the patient back to the times when the hold ends', async () => {
    const url = `/api/v1/public/schedulers/${scheduler.id}`;
    const form = { 'content-type': 'application/x-www-form-urlencoded', ...HTML };
    const times = await client(suite.app).get(`${url}?provider=${secondId}`, HTML);
    const start = [...times.text.matchAll(/data-slot="([^"]+)"/g)].map((m) => m[1])[5];
    const held = await call(suite.app, 'POST', `${url}/page/hold`, {
      rawBody: new URLSearchParams({ datetime: start, providerId: secondId }).toString(),
      headers: form,
    });
    expect(held.status).toBe(200);
    const holdId = /name="holdId"\s+value="([^"]+)"/.exec(held.text)![1];
    // Held: no longer offered, on the page or to anyone else.
    expect((await client(suite.app).get(`${url}?provider=${secondId}`, HTML)).text).not.toContain(`data-slot="${start}"`);
    const again = await call(suite.app, 'POST', `${url}/page/hold`, {
      rawBody: new URLSearchParams({ datetime: start, providerId: secondId }).toString(),
      headers: form,
    });
    expect([again.status, again.text.includes('that time was just taken')]).toEqual([409, true]);

    // The practice releases it (as a lapse would): the details form then leads back to the times.
    expect((await client(suite.app, tenant.liveKey).delete(`/api/v1/scheduling/holds/${holdId}`)).status).toBe(204);
    const late = await call(suite.app, 'POST', `${url}/page/book`, {
      rawBody: new URLSearchParams({ holdId, firstName: 'Late', lastName: 'Patient', email: 'late@example.com' }).toString(),
      headers: form,
    });
    expect([late.status, late.text.includes('the hold has ended')]).toEqual([410, true]);
    expect(late.text).toContain(`data-slot="${start}"`);
  });

  it('may be framed by the practice embedOrigins only, and shows an https logo and nothing else from elsewhere', async () => {
    const owner = client(suite.app, tenant.liveKey);
    const url = `/api/v1/public/schedulers/${scheduler.id}`;
    const framed = (await client(suite.app).get(url, HTML)).headers;
    expect(framed['content-security-policy']).toContain(`frame-ancestors 'none'`);
    expect(framed['x-frame-options']).toBe('DENY');

    const bad = await owner.post<{ errors: { field: string }[] }>('/api/v1/settings/brand', { logoUrl: 'http://cdn.example.com/logo.png' });
    expect([bad.status, bad.body.errors.map((e) => e.field)]).toEqual([400, ['logoUrl']]);
    const origins = await owner.post<{ errors: { field: string }[] }>('/api/v1/settings/practice', {
      embedOrigins: ['https://www.riverside.example/path'],
    });
    expect([origins.status, origins.body.errors.map((e) => e.field)]).toEqual([400, ['embedOrigins']]);

    expect((await owner.post('/api/v1/settings/brand', { logoUrl: 'https://cdn.riverside.example/logo.png' })).status).toBe(200);
    expect((await owner.post('/api/v1/settings/practice', { embedOrigins: ['https://www.riverside.example'] })).status).toBe(200);
    const res = await client(suite.app).get(url, HTML);
    expect(res.headers['content-security-policy']).toContain('frame-ancestors https://www.riverside.example');
    expect(res.headers['content-security-policy']).toContain(`img-src 'self' data: https://cdn.riverside.example`);
    expect(res.headers['content-security-policy']).toContain(`default-src 'none'`);
    expect(res.headers['x-frame-options']).toBeUndefined();
    expect(res.text).toContain('<img src="https://cdn.riverside.example/logo.png"');
    // The logo is the only address of another origin the page names.
    const foreign = [...res.text.matchAll(/(?:src|href|action)="(https?:[^"]+)"/g)].map((m) => new URL(m[1]).origin);
    expect([...new Set(foreign)]).toEqual(['https://cdn.riverside.example']);
    await owner.post('/api/v1/settings/brand', { logoUrl: null });
    await owner.post('/api/v1/settings/practice', { embedOrigins: null });
  });
});
