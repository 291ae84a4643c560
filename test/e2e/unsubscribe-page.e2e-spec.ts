import { UnsubscribeTokens } from '../../src/modules/email/unsubscribe-tokens.service';
import { call, createTenant, type Problem } from '../helpers/app';
import { createPatient, NO_RATE_LIMITS } from '../helpers/patients';
import { useApp } from '../helpers/use-app';

/** What Chromium sends when it follows a link or posts a form. */
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
const UNSUBSCRIBE = '/api/v1/public/unsubscribe';

/**
 * The page an unsubscribe link opens (docs/api.md, Email): GET shows the practice and one button and changes
 * nothing (RFC 8058: scanners and previews open links); the button posts the one-click unsubscribe. The
 * same in Chromium is in browser.e2e-spec.ts.
 */
describe('Unsubscribe page: GET /public/unsubscribe/{token}', () => {
  const suite = useApp({ ...NO_RATE_LIMITS, WORKERS: 'off' });
  const tokenFor = (tenantId: string, patientId: string): string =>
    suite.app.get(UnsubscribeTokens).token({ tenantId, mode: 'test', patientId });
  const page = (url: string, accept = BROWSER_ACCEPT) => call<Problem | undefined>(suite.app, 'GET', url, { headers: { accept } });

  beforeAll(async () => {
    const named = await suite.api().post('/api/v1/settings/practice', { name: `Riverside <Clinic> & "Sons"` });
    expect(named.status).toBe(200);
  });

  it('names the practice (escaped) with one button that posts the one-click unsubscribe, and changes nothing itself', async () => {
    const patient = await createPatient(suite.app, suite.tenant.testKey, { email: 'page@example.test' });
    const token = tokenFor(suite.tenant.id, patient.id);
    const before = await suite.api().get(`/api/v1/patients/${patient.id}`);

    for (const accept of [BROWSER_ACCEPT, '*/*']) {
      const res = await page(`${UNSUBSCRIBE}/${token}`, accept);
      expect([accept, res.status, res.headers['content-type']]).toEqual([accept, 200, 'text/html; charset=utf-8']);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.text).toContain('<h1>Unsubscribe from Riverside &lt;Clinic&gt; &amp; &quot;Sons&quot;</h1>');
      expect(res.text).not.toContain('<Clinic>');
      expect(res.text.match(/<button/g)).toHaveLength(1);
      expect(res.text.match(/<form method="post" action="([^"]+)">/)?.[1]).toBe(`${UNSUBSCRIBE}/${token}`);
      expect(res.text).toMatch(/<input type="hidden" name="List-Unsubscribe" value="One-Click" ?\/?>/);
      expect(res.text).not.toContain('<script');
      // The page's form may post (form-action 'self'), over plain http too.
      expect(res.headers['content-security-policy']).toContain("form-action 'self'");
      expect(res.headers['content-security-policy']).not.toContain('upgrade-insecure-requests');
    }

    const after = await suite.api().get<{ emailOptOut: boolean }>(`/api/v1/patients/${patient.id}`);
    expect(after.body.emailOptOut).toBe(false);
    expect(after.headers.etag).toBe(before.headers.etag);
    const events = await suite.api().get<{ events: { data?: { id?: string } }[] }>(`/api/v1/events?type=patient.updated&limit=100`);
    expect(events.body.events.filter((e) => e.data?.id === patient.id)).toEqual([]);
  });

  it("the button's post unsubscribes and answers a page; a mail client's post still gets JSON", async () => {
    const patient = await createPatient(suite.app, suite.tenant.testKey, { email: 'button@example.test' });
    const token = tokenFor(suite.tenant.id, patient.id);
    const action = (await page(`${UNSUBSCRIBE}/${token}`)).text.match(/action="([^"]+)"/)![1];
    const res = await call(suite.app, 'POST', action, {
      rawBody: 'List-Unsubscribe=One-Click',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: BROWSER_ACCEPT },
    });
    expect([res.status, res.headers['content-type']]).toEqual([200, 'text/html; charset=utf-8']);
    expect(res.text).toContain('Riverside &lt;Clinic&gt; &amp; &quot;Sons&quot; will send no more email to this address.');
    expect((await suite.api().get<{ emailOptOut: boolean }>(`/api/v1/patients/${patient.id}`)).body.emailOptOut).toBe(true);

    const mailClient = await call<{ message: string }>(suite.app, 'POST', action, {
      rawBody: 'List-Unsubscribe=One-Click',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect([mailClient.status, mailClient.body.message]).toEqual([200, expect.stringMatching(/^Unsubscribed/)]);
  });

  it('names the tenant when the practice settings give no name', async () => {
    const other = await createTenant(suite.app, 'Hillside & Partners');
    const patient = await createPatient(suite.app, other.testKey, { email: 'tenant@example.test' });
    const res = await page(`${UNSUBSCRIBE}/${tokenFor(other.id, patient.id)}`);
    expect(res.text).toContain('<h1>Unsubscribe from Hillside &amp; Partners</h1>');
  });

  it('answers an invalid link with an HTML 404 page for a browser and a problem for other clients, on GET and on POST', async () => {
    const patient = await createPatient(suite.app, suite.tenant.testKey, { email: 'forged@example.test' });
    const token = tokenFor(suite.tenant.id, patient.id);
    const forged = `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`;
    for (const bad of [forged, 'garbage', '<script>alert(1)</script>']) {
      const url = `${UNSUBSCRIBE}/${encodeURIComponent(bad)}`;
      const browser = await page(url);
      expect([bad, browser.status, browser.headers['content-type']]).toEqual([bad, 404, 'text/html; charset=utf-8']);
      expect(browser.text).toContain('This unsubscribe link is invalid');
      expect(browser.text).not.toContain('<script');
      const posted = await call(suite.app, 'POST', url, {
        rawBody: 'List-Unsubscribe=One-Click',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: BROWSER_ACCEPT },
      });
      expect([bad, posted.status, posted.text]).toEqual([bad, 404, expect.stringContaining('This unsubscribe link is invalid')]);
      const json = await page(url, 'application/json');
      expect([bad, json.status, json.headers['content-type'], json.body?.code]).toEqual([
        bad,
        404,
        'application/problem+json; charset=utf-8',
        'not_found',
      ]);
    }
    expect((await suite.api().get<{ emailOptOut: boolean }>(`/api/v1/patients/${patient.id}`)).body.emailOptOut).toBe(false);
  });
});
