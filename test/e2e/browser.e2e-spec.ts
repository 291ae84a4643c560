import type { Page } from 'playwright-core';
import { exampleDate } from '../../src/common/http/openapi/example-dates';
import { clock } from '../../src/common/time/clock';
import { UnsubscribeTokens } from '../../src/modules/email/unsubscribe-tokens.service';
import { client, createTenant, TestTenant } from '../helpers/app';
import { serveSite, useBrowser } from '../helpers/browser';
import { freePort } from '../helpers/ports';
import { createPatient, NO_RATE_LIMITS } from '../helpers/patients';
import { createProvider, createScheduler, everyDay } from '../helpers/scheduling';
import { useApp } from '../helpers/use-app';

const API_HOST = 'api.clinic.test';
const PRACTICE_SITE = 'www.practice.test';
const PORTAL = 'portal.clinic.test';

/**
 * The API as browsers meet it, in a real headless Chromium: Swagger UI served over plain http under a host
 * name that is not localhost (an internal deployment), a practice's own website calling the public booking
 * routes from another origin, and the page an unsubscribe link opens. cors.e2e-spec.ts checks the headers.
 */
describe('In a browser', () => {
  const chromium = useBrowser([API_HOST, PRACTICE_SITE, PORTAL]);
  let port: number;
  let api: string;
  let site: Awaited<ReturnType<typeof serveSite>>;
  let tenant: TestTenant;

  beforeAll(async () => {
    site = await serveSite('<!doctype html><title>Practice</title><h1>Book with us</h1>');
    port = await freePort();
    api = `http://${API_HOST}:${port}`;
  });
  const suite = useApp(() => ({
    ...NO_RATE_LIMITS,
    RATE_LIMIT_IP_PER_SECOND: '0',
    RATE_LIMIT_IP_PER_HOUR: '0',
    WORKERS: 'off',
    PORT: String(port),
    PUBLIC_URL: api,
    CORS_ORIGINS: `http://${PORTAL}:${site.port}`,
  }));
  beforeAll(async () => {
    await suite.app.listen({ port, host: '127.0.0.1' });
    // A tenant of its own, for the name the pages show.
    tenant = await createTenant(suite.app, 'Riverside Clinic');
  });
  afterAll(async () => {
    await site?.close();
  });

  /** A page whose failed loads (blocked by CSP, an https upgrade, CORS, an error status) and console errors are collected. */
  const open = async (): Promise<{ page: Page; failures: string[] }> => {
    const page = await chromium.browser.newPage();
    const failures: string[] = [];
    page.on('requestfailed', (r) => failures.push(`${r.url()}: ${r.failure()?.errorText}`));
    // The API has no favicon; Chromium asks for one on every page it shows.
    page.on('response', (r) => void (r.status() >= 400 && !r.url().endsWith('/favicon.ico') && failures.push(`${r.url()}: ${r.status()}`)));
    // Over plain http Chromium ignores Cross-Origin-Opener-Policy (kept as it is) and says so: not a failure.
    // A load that answered an error status is in the list above, by its URL.
    const ignored = (text: string): boolean => text.includes('Cross-Origin-Opener-Policy') || text.startsWith('Failed to load resource');
    page.on('console', (m) => void (m.type() === 'error' && !ignored(m.text()) && failures.push(m.text())));
    return { page, failures };
  };

  /** Swagger UI's "Try it out" and Execute on GET /me; the status it shows and the text of its response. */
  const tryGetMe = async (page: Page): Promise<{ status: string; response: string }> => {
    const me = page.locator('#operations-API_keys-getMe');
    await me.waitFor({ timeout: 20_000 });
    await me.locator('.opblock-summary').first().click();
    await me.locator('button.try-out__btn').click();
    await me.locator('button.execute').click();
    const status = me.locator('.live-responses-table .response .response-col_status').first();
    await status.waitFor({ timeout: 20_000 });
    return { status: (await status.innerText()).trim(), response: await me.locator('.live-responses-table').innerText() };
  };

  describe('Swagger UI over plain http on a host name', () => {
    it('renders the operations, and says in the Authorize dialog where a key comes from and what its mode means', async () => {
      const { page, failures } = await open();
      try {
        const response = await page.goto(`${api}/api/docs`);
        expect(response?.status()).toBe(200);
        await page.locator('#operations-Patients-createPatient').waitFor({ timeout: 20_000 });
        expect(await page.locator('.opblock').count()).toBeGreaterThan(40);
        expect(page.url()).toBe(`${api}/api/docs`); // never moved to https
        await page.locator('button.authorize').first().click();
        const dialog = await page.locator('.modal-ux').innerText();
        expect(dialog).toContain('node dist/cli.js tenants:create');
        expect(dialog).toContain('sk_test_');
        expect(dialog).toContain('sk_live_');
        expect(dialog).toContain('10 requests a second, 100 an hour and 1,000 a day');
        await page.locator('.modal-ux button.close-modal').click();

        // "Try it out" pre-fills dates computed when the page was served: next Monday, never a fixed day.
        const book = page.locator('#operations-Scheduling-bookAppointment');
        await book.locator('.opblock-summary').first().click();
        await book.locator('button.try-out__btn').click();
        const monday = exampleDate({ daysAfterNextMonday: 0, time: '15:00' }, clock.now());
        expect(await book.locator('textarea.body-param__text').inputValue()).toContain(`"datetime": "${monday}"`);
        const availability = page.locator('#operations-Scheduling-getAvailability');
        await availability.locator('.opblock-summary').first().click();
        await availability.locator('button.try-out__btn').click();
        expect(await availability.locator('tr[data-param-name="startDate"] input').inputValue()).toBe(monday.slice(0, 10));
        expect(failures).toEqual([]);
      } finally {
        await page.close();
      }
    }, 60_000);

    it('keeps the key across a reload, and "Try it out" sends it', async () => {
      const { page, failures } = await open();
      try {
        await page.goto(`${api}/api/docs`);
        await page.locator('button.authorize').first().click();
        await page.locator('.modal-ux input').first().fill(tenant.testKey);
        await page.locator('.modal-ux button.authorize').click();
        await page.locator('.modal-ux button.btn-done').click();

        await page.reload();
        const me = await tryGetMe(page);
        expect(me.status).toBe('200');
        expect(me.response).toContain('Riverside Clinic');
        expect(failures).toEqual([]);
      } finally {
        await page.close();
      }
    }, 60_000);
  });

  // Apps of their own (the suite's names its host in PUBLIC_URL): a page reached by another name than
  // PUBLIC_URL's, or with none set, must still reach the API it came from.
  describe.each([
    ['unset', {}],
    ['naming another address', { PUBLIC_URL: 'https://api.clinic.example' }],
  ])('Swagger UI\'s "Try it out" with PUBLIC_URL %s', (_, env: Record<string, string>) => {
    let ownPort: number;
    beforeAll(async () => {
      ownPort = await freePort();
    });
    const own = useApp(() => ({
      WORKERS: 'off',
      RATE_LIMIT_IP_PER_SECOND: '0',
      RATE_LIMIT_IP_PER_HOUR: '0',
      PORT: String(ownPort),
      ...env,
    }));
    beforeAll(() => own.app.listen({ port: ownPort, host: '127.0.0.1' }));

    it.each(['localhost', '127.0.0.1', API_HOST])(
      'calls the API at the origin the page was loaded from: %s',
      async (host) => {
        const origin = `http://${host}:${ownPort}`;
        const { page, failures } = await open();
        try {
          // Chromium also logs a violation as a console error (in failures); the event names the directive.
          await page.addInitScript({
            content: `window.cspViolations = [];
            document.addEventListener('securitypolicyviolation', (e) => window.cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));`,
          });
          const called: string[] = [];
          page.on('response', (r) => void (r.url().includes('/api/v1/') && called.push(`${r.url()} ${r.status()}`)));
          await page.goto(`${origin}/api/docs`);
          const me = await tryGetMe(page);
          // No key given: the API's own refusal, not a fetch the browser stopped.
          expect(me.status).toBe('401');
          expect(me.response).toContain('missing_api_key');
          expect(called).toEqual([`${origin}/api/v1/me 401`]);
          expect(await page.evaluate<string[]>('window.cspViolations')).toEqual([]);
          expect(failures).toEqual([`${origin}/api/v1/me: 401`]);
        } finally {
          await page.close();
        }
      },
      60_000,
    );
  });

  describe("a practice's website on another origin", () => {
    let schedulerId: string;

    beforeAll(async () => {
      const provider = await createProvider(suite.app, tenant.testKey, { timezone: 'UTC', workingHours: everyDay('00:00', '24:00') });
      schedulerId = (await createScheduler(suite.app, tenant.testKey, [provider.id], { name: 'First visit' })).id;
    });

    it('books through the public routes with fetch: the page, its availability and the booking', async () => {
      const { page } = await open();
      try {
        await page.goto(`http://${PRACTICE_SITE}:${site.port}/`);
        const tomorrow = new Date(clock.nowMs() + 86_400_000).toISOString().slice(0, 10);
        const result = await page.evaluate(
          async ({ base, id, day }) => {
            const json = async <T = unknown>(res: Response) => ({ status: res.status, body: (await res.json()) as T });
            const scheduler = await json(await fetch(`${base}/api/v1/public/schedulers/${id}`));
            const availability = await json<{ slots: { start: string }[] }>(
              await fetch(`${base}/api/v1/public/schedulers/${id}/availability?startDate=${day}&endDate=${day}`),
            );
            const booked = await fetch(`${base}/api/v1/public/schedulers/${id}/book`, {
              method: 'POST',
              headers: { 'Content-Type': 'application/json' },
              body: JSON.stringify({
                firstName: 'Grace',
                lastName: 'Web',
                email: 'grace.web@example.com',
                datetime: availability.body.slots[0].start,
              }),
            });
            return { scheduler, availability, booked: await json(booked), requestId: booked.headers.get('X-Request-Id') };
          },
          { base: api, id: schedulerId, day: tomorrow },
        );
        expect(result.scheduler).toMatchObject({ status: 200, body: { name: 'First visit' } });
        expect(result.availability.status).toBe(200);
        expect(result.booked).toMatchObject({ status: 201, body: { status: 'scheduled' } });
        expect(result.requestId).toEqual(expect.any(String)); // exposed to the page
      } finally {
        await page.close();
      }
    }, 60_000);

    it('cannot call a keyed route, unless CORS_ORIGINS lists its origin', async () => {
      const callMe = (page: Page) =>
        page.evaluate(
          async ({ base, key }) => {
            try {
              const res = await fetch(`${base}/api/v1/me`, { headers: { Authorization: `Bearer ${key}` } });
              return { status: res.status, tenant: ((await res.json()) as { tenant: { name: string } }).tenant.name };
            } catch (err) {
              return { blocked: String(err) };
            }
          },
          { base: api, key: tenant.testKey },
        );
      const { page } = await open();
      try {
        await page.goto(`http://${PRACTICE_SITE}:${site.port}/`);
        expect(await callMe(page)).toEqual({ blocked: 'TypeError: Failed to fetch' });
        await page.goto(`http://${PORTAL}:${site.port}/`);
        expect(await callMe(page)).toEqual({ status: 200, tenant: 'Riverside Clinic' });
      } finally {
        await page.close();
      }
    }, 60_000);
  });

  describe('the page an unsubscribe link opens', () => {
    it('names the practice; its button unsubscribes the patient, and only the button does', async () => {
      const patient = await createPatient(suite.app, tenant.testKey, { email: 'click@example.test' });
      const token = suite.app.get(UnsubscribeTokens).token({ tenantId: tenant.id, mode: 'test', patientId: patient.id });
      const optedOut = async (): Promise<boolean> =>
        (await client(suite.app, tenant.testKey).get<{ emailOptOut: boolean }>(`/api/v1/patients/${patient.id}`)).body.emailOptOut;
      const { page, failures } = await open();
      try {
        await page.goto(`${api}/api/v1/public/unsubscribe/${token}`);
        expect(await page.locator('h1').innerText()).toBe('Unsubscribe from Riverside Clinic');
        expect(await optedOut()).toBe(false);
        await Promise.all([
          page.waitForURL(`${api}/api/v1/public/unsubscribe/${token}`),
          page.getByRole('button', { name: 'Unsubscribe' }).click(),
        ]);
        await page.getByText('You are unsubscribed').waitFor();
        expect(await page.locator('body').innerText()).toContain('Riverside Clinic will send no more email to this address.');
        expect(await optedOut()).toBe(true);
        expect(failures).toEqual([]);

        const invalid = await page.goto(`${api}/api/v1/public/unsubscribe/${token.slice(0, -3)}`);
        expect(invalid?.status()).toBe(404);
        expect(await page.locator('h1').innerText()).toBe('This unsubscribe link is invalid');
      } finally {
        await page.close();
      }
    }, 60_000);
  });
});
