import { call, client } from '../helpers/app';
import { LogCapture } from '../helpers/log-capture';
import { createPatient, NO_RATE_LIMITS, PATIENTS } from '../helpers/patients';
import { BuiltProcess, sleep } from '../helpers/processes';
import { freePort } from '../helpers/ports';
import { eventually } from '../helpers/eventually';
import { useApp } from '../helpers/use-app';

/**
 * At the default level (info) every answered request is one JSON line: method, route pattern, status, time,
 * request id, tenant and key ids, client address; never a body, a query value, a patient's data or a key.
 */
/** What GET /me answers that these tests read. */
interface Me {
  key: { id: string };
}

describe('Request lines at info', () => {
  let keyIds: { test: string; live: string };
  const capture = new LogCapture();
  /** The lines of one request, once its onResponse hook has run. */
  const linesOf = async (requestId: string): Promise<Record<string, unknown>[]> => {
    await sleep(100);
    return capture.about(requestId);
  };

  beforeAll(() => {
    capture.start();
  });
  // The live key may make two requests an hour here, so that its third answers 429.
  const suite = useApp({
    ...NO_RATE_LIMITS,
    RATE_LIMIT_LIVE_PER_HOUR: '2',
    REDIS_PREFIX: `${process.env.REDIS_PREFIX}:reqlog`,
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    WORKERS: 'off',
  });
  beforeAll(async () => {
    keyIds = {
      test: (await suite.api().get<Me>('/api/v1/me')).body.key.id,
      live: (await suite.api(suite.tenant.liveKey).get<Me>('/api/v1/me')).body.key.id,
    };
  });
  afterAll(() => {
    capture.stop();
  });

  it('names the route pattern, status, time, request id, tenant, key and client; not the id in the path', async () => {
    const patient = await createPatient(suite.app, suite.tenant.testKey, {
      firstName: 'Philippa',
      lastName: 'Quenby',
      email: 'pq@example.org',
    });
    const read = await suite.api().get(`${PATIENTS}/${patient.id}`, { 'x-request-id': 'reqlog-read-1' });
    expect(read.status).toBe(200);

    const [line, ...more] = await linesOf('reqlog-read-1');
    expect(more).toEqual([]);
    expect(line).toMatchObject({
      level: 30,
      msg: 'request completed',
      requestId: 'reqlog-read-1',
      method: 'GET',
      route: '/api/v1/patients/:id',
      statusCode: 200,
      tenantId: suite.tenant.id,
      apiKeyId: keyIds.test,
      ip: '127.0.0.1',
    });
    expect(typeof line.responseTime).toBe('number');
    const text = JSON.stringify(line);
    expect(text).not.toContain(patient.id);
    expect(text).not.toMatch(/Quenby|Philippa|pq@example|sk_test_|Bearer/i);
  });

  it('logs a 400, a 409 and a 429 as exactly one line each, without the body, the patient or the key', async () => {
    const invalid = await call(suite.app, 'POST', PATIENTS, {
      key: suite.tenant.testKey,
      body: { firstName: 'Zebedee', lastName: 'Worrall', email: 'not-an-email', dateOfBirth: 'yesterday' },
      headers: { 'x-request-id': 'reqlog-400' },
    });
    await createPatient(suite.app, suite.tenant.testKey, { externalId: 'EXT-LOG-1' });
    const taken = await call(suite.app, 'POST', PATIENTS, {
      key: suite.tenant.testKey,
      body: { firstName: 'Zebedee', lastName: 'Worrall', externalId: 'EXT-LOG-1' },
      headers: { 'x-request-id': 'reqlog-409' },
    });
    // The live key's hour allows two requests (one was the /me above).
    await suite.api(suite.tenant.liveKey).get('/api/v1/me');
    const limited = await call(suite.app, 'GET', `${PATIENTS}?search=Worrall`, {
      key: suite.tenant.liveKey,
      headers: { 'x-request-id': 'reqlog-429' },
    });
    expect([invalid.status, taken.status, limited.status]).toEqual([400, 409, 429]);

    const expected = [
      ['reqlog-400', 400, 'POST', keyIds.test],
      ['reqlog-409', 409, 'POST', keyIds.test],
      ['reqlog-429', 429, 'GET', keyIds.live],
    ] as const;
    for (const [id, status, method, apiKeyId] of expected) {
      const lines = await linesOf(id);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ level: 30, statusCode: status, method, route: PATIENTS, tenantId: suite.tenant.id, apiKeyId });
      expect(JSON.stringify(lines[0])).not.toMatch(/Zebedee|Worrall|not-an-email|yesterday|EXT-LOG|search|sk_(test|live)_/);
    }
  });

  it('an unknown route is logged without its path; probes and scrapes are not logged', async () => {
    const missing = await suite.api().get('/api/v1/no-such-thing/Quenby', { 'x-request-id': 'reqlog-404' });
    await client(suite.app).get('/health/live', { 'x-request-id': 'reqlog-live' });
    expect(missing.status).toBe(404);
    const lines = await linesOf('reqlog-404');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ statusCode: 404, route: null });
    expect(JSON.stringify(lines[0])).not.toContain('Quenby');
    expect(await linesOf('reqlog-live')).toEqual([]);
  });

  it('writes JSON lines only (LOG_FORMAT=json)', () => {
    expect(capture.lines.length).toBeGreaterThan(5);
    for (const line of capture.lines) expect(() => JSON.parse(line) as unknown).not.toThrow();
  });
});

describe('Job failures', () => {
  const capture = new LogCapture();
  let smtpPort: number;

  beforeAll(async () => {
    capture.start();
    smtpPort = await freePort(); // nothing listens there: every send fails
  });
  const suite = useApp(() => ({
    ...NO_RATE_LIMITS,
    SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
    TEST_SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
    EMAIL_MAX_ATTEMPTS: '2',
    EMAIL_RETRY_BASE_MS: '50',
    REDIS_PREFIX: `${process.env.REDIS_PREFIX}:reqlog-jobs`,
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
  }));
  afterAll(() => {
    capture.stop();
  });

  it('logs each failed attempt once, with its queue, job id and attempt, and nothing of the message', async () => {
    const sent = await suite.api().post<{ messageId: string }>('/api/v1/emails/send', {
      to: 'harriet.vole@example.test',
      subject: 'Your biopsy result',
      textContent: 'Benign',
    });
    expect(sent.status).toBe(202);
    await eventually(async () => {
      const message = await suite.api().get<{ status: string }>(`/api/v1/emails/messages/${sent.body.messageId}`);
      expect(message.body.status).toBe('failed');
    }, 60_000);
    await sleep(200);

    const failures = capture.lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'job attempt failed');
    expect(failures.map((l) => [l.level, l.queue, l.attempt, l.attempts])).toEqual([
      [40, 'email-sends', 1, 2],
      [40, 'email-sends', 2, 2],
    ]);
    expect(new Set(failures.map((l) => l.jobId)).size).toBe(1);
    expect(typeof failures[0].jobId).toBe('string');
    expect(capture.lines.join('\n')).not.toMatch(/harriet|biopsy|Benign/i);
  });
});

describe('LOG_FORMAT=json: a built API and worker print JSON lines only, start-up and shutdown included', () => {
  // Child processes, not useApp: what the built entry points print on their own stdout and stderr is the subject.
  it('every line of stdout and stderr parses as JSON', async () => {
    const port = String(await freePort());
    const env = { LOG_FORMAT: 'json', LOG_LEVEL: 'info', PORT: port };
    const api = BuiltProcess.start('main.js', env);
    const worker = BuiltProcess.start('worker.js', env);
    try {
      await api.waitUntilLive(`http://127.0.0.1:${port}`);
      await worker.waitFor(/worker started/);
      await fetch(`http://127.0.0.1:${port}/api/v1/me`, { headers: { 'x-request-id': 'reqlog-built-1' } });
    } finally {
      expect((await api.stop('SIGTERM')).code).toBe(0);
      expect((await worker.stop('SIGTERM')).code).toBe(0);
    }
    for (const built of [api, worker]) {
      const lines = built.output.split('\n').filter(Boolean);
      for (const line of lines) expect(() => JSON.parse(line) as unknown).not.toThrow();
    }
    const apiLines = api.output
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { msg: string; statusCode?: number });
    expect(apiLines.map((l) => l.msg)).toEqual(expect.arrayContaining([expect.stringMatching(/^API listening on/), 'request completed']));
    expect(apiLines.find((l) => l.msg === 'request completed')).toMatchObject({ statusCode: 401, route: '/api/v1/me' });
    expect(worker.output).toMatch(/"msg":"worker started"/);
    // Shutdown says it began and that it ended, the last line written before the process exits.
    for (const built of [api, worker]) {
      const msgs = built.output
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { msg: string }).msg);
      expect(msgs).toContain('SIGTERM: stopping (in-flight requests and jobs finish, buffered writes are flushed)');
      expect(msgs[msgs.length - 1]).toBe('stopped');
    }
  });
});

describe('LOG_FORMAT=pretty: a built API prints one line per request, as on a terminal', () => {
  // A child process, not useApp: the prettifier writes to the process's own stdout.
  it('every entry is one line, each request a line with its route, status, time and request id, and no query value', async () => {
    const port = String(await freePort());
    const api = BuiltProcess.start('main.js', { LOG_FORMAT: 'pretty', LOG_LEVEL: 'info', PORT: port, WORKERS: 'off' });
    try {
      await api.waitUntilLive(`http://127.0.0.1:${port}`);
      await fetch(`http://127.0.0.1:${port}/api/v1/me`, { headers: { 'x-request-id': 'reqlog-pretty-1' } });
      await fetch(`http://127.0.0.1:${port}/api/v1/patients?search=Quenby`, { headers: { 'x-request-id': 'reqlog-pretty-2' } });
      await api.waitFor(/reqlog-pretty-2/);
    } finally {
      expect((await api.stop('SIGTERM')).code).toBe(0);
    }
    const lines = api.output
      .replace(/\x1b\[[0-9;]*m/g, '')
      .split('\n')
      .filter(Boolean);
    // pino-pretty starts each entry with its time; a field printed on a line of its own would not.
    for (const line of lines) expect(line).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] [A-Z]+: /);
    expect(lines.filter((l) => l.includes('reqlog-pretty-1'))).toEqual([
      expect.stringMatching(/ INFO: request completed GET \/api\/v1\/me 401 [\d.]+ ms .*"requestId":"reqlog-pretty-1"/),
    ]);
    expect(lines.filter((l) => l.includes('reqlog-pretty-2'))).toEqual([
      expect.stringMatching(/ INFO: request completed GET \/api\/v1\/patients 401 [\d.]+ ms /),
    ]);
    expect(api.output).not.toMatch(/Quenby|search/);
  });
});
