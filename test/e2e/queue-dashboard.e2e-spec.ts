import { call, type Problem, startApp } from '../helpers/app';
import { launchChromium } from '../helpers/browser';
import { QueueName } from '../../src/common/queue/queues';
import { useApp } from '../helpers/use-app';
import { eventually } from '../helpers/eventually';
import type { EmailSendAcceptedDto } from '../../src/modules/email/dto/send-email.dto';

const PASSWORD = 'correct horse battery staple';
const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('Queue dashboard (/admin/queues)', () => {
  it('is not there without QUEUE_DASHBOARD_PASSWORD', async () => {
    const app = await startApp({ WORKERS: 'off' });
    try {
      for (const url of ['/admin/queues', '/admin/queues/api/queues']) {
        const res = await call<Problem>(app, 'GET', url, { headers: { authorization: basic('admin', PASSWORD) } });
        expect([url, res.status, res.body.code]).toEqual([url, 404, 'not_found']);
      }
    } finally {
      await app.close();
    }
  });

  describe('with a password', () => {
    const suite = useApp({
      WORKERS: 'off',
      QUEUE_DASHBOARD_PASSWORD: PASSWORD,
      RATE_LIMIT_IP_PER_SECOND: '0',
      RATE_LIMIT_IP_PER_HOUR: '0',
    });
    let origin: string;

    // On a port of its own, for Chromium.
    beforeAll(async () => {
      await suite.app.listen({ port: 0, host: '127.0.0.1' });
      origin = await suite.app.getUrl();
    });

    it('answers 401 with a Basic challenge without credentials or with wrong ones', async () => {
      const attempts: [string, Record<string, string>][] = [
        ['none', {}],
        ['wrong password', { authorization: basic('admin', 'wrong password!!') }],
        ['wrong user', { authorization: basic('root', PASSWORD) }],
        ['a bearer key', { authorization: 'Bearer sk_test_abc' }],
        ['garbage', { authorization: 'Basic ???' }],
      ];
      for (const [what, headers] of attempts) {
        for (const url of ['/admin/queues', '/admin/queues/api/queues', '/admin/queues/static/js/main.js']) {
          const res = await call<Problem | undefined>(suite.app, 'GET', url, { headers });
          expect([what, url, res.status, res.body?.code, res.headers['www-authenticate']]).toEqual([
            what,
            url,
            401,
            'invalid_credentials',
            'Basic realm="Queue dashboard", charset="UTF-8"',
          ]);
        }
      }
    });

    it('serves the dashboard and its API with the right credentials, and guards nothing else', async () => {
      const headers = { authorization: basic('admin', PASSWORD) };
      const page = await call(suite.app, 'GET', '/admin/queues', { headers });
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toMatch(/text\/html/);
      const api = await call<{ queues: { name: string }[] }>(suite.app, 'GET', '/admin/queues/api/queues', { headers });
      expect(api.status).toBe(200);
      expect(api.body.queues.map((q) => q.name).sort()).toEqual(Object.values(QueueName).sort());
      // The hook lives in the dashboard's plugin scope: the API's own routes do not ask for Basic auth.
      expect((await call(suite.app, 'GET', '/health/live')).status).toBe(200);
      expect((await call<Problem>(suite.app, 'GET', '/api/v1/me')).body.code).toBe('missing_api_key');
    });

    it('renders every queue name in a real headless Chromium', async () => {
      // No skipping: CI installs Chromium (.ci/run); without it this test fails and says so.
      const browser = await launchChromium();
      try {
        const context = await browser.newContext({ httpCredentials: { username: 'admin', password: PASSWORD } });
        const page = await context.newPage();
        const response = await page.goto(`${origin}/admin/queues`);
        expect(response?.status()).toBe(200);
        for (const name of Object.values(QueueName)) {
          await page.getByText(name, { exact: true }).first().waitFor({ timeout: 15_000 });
        }
        const text = await page.locator('body').innerText();
        for (const name of Object.values(QueueName)) expect(text).toContain(name);
      } finally {
        await browser.close();
      }
    }, 60_000);
  });

  describe('with workers', () => {
    // Queues of their own, so that only this block's jobs are listed.
    const suite = useApp({ QUEUE_DASHBOARD_PASSWORD: PASSWORD, REDIS_PREFIX: `${process.env.REDIS_PREFIX}:dashboard-completed` });

    it('lists a job that has completed, so an operator sees what just ran', async () => {
      const sent = await suite
        .api()
        .post<EmailSendAcceptedDto>('/api/v1/emails/send', { to: 'ran@example.test', subject: 'S', textContent: 'x' });
      expect(sent.status).toBe(202);
      await eventually(async () => {
        const message = await suite.api().get<{ status: string }>(`/api/v1/emails/messages/${sent.body.messageId}`);
        expect(message.body.status).toBe('sent');
      });
      const url = `/admin/queues/api/queues?activeQueue=${QueueName.EmailSends}&status=completed&page=1&jobsPerPage=10`;
      const headers = { authorization: basic('admin', PASSWORD) };
      type Listing = { queues: { name: string; counts: { completed: number }; jobs: { id: string }[] }[] };
      // The job settles its message before BullMQ records it completed.
      const listed = await eventually(async () => {
        const res = await call<Listing>(suite.app, 'GET', url, { headers });
        const queue = res.body.queues.find((q) => q.name === String(QueueName.EmailSends))!;
        expect(queue.jobs.map((j) => j.id)).toContain(sent.body.messageId);
        return queue;
      });
      expect(listed.counts.completed).toBe(1);
    });
  });

  it('refuses to start with a password shorter than 12 characters, without echoing it', async () => {
    await expect(startApp({ QUEUE_DASHBOARD_PASSWORD: 'short-pw' })).rejects.toThrow(
      /^Invalid configuration: QUEUE_DASHBOARD_PASSWORD must be at least 12 characters$/,
    );
  });
});
