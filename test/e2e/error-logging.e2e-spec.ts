import { client, dataSource, type Problem } from '../helpers/app';
import { useApp } from '../helpers/use-app';
import { LogCapture } from '../helpers/log-capture';

/*
 * The log lines of this suite's app, read where pino writes them (LogCapture), at LOG_LEVEL=debug so that
 * Nest's start-up lines are written too.
 */
describe('Errors are logged once, requests once, probes never', () => {
  const capture = new LogCapture();
  const lines = capture.lines;

  beforeAll(async () => {
    capture.start();
  });
  const suite = useApp(() => ({ LOG_LEVEL: 'debug', LOG_FORMAT: 'json' }));
  afterAll(async () => {
    capture.stop();
  });

  it('a 500 is logged once, with its class and SQL state, and no second "failed with status code" line', async () => {
    const db = dataSource(suite.app);
    await db.query('ALTER TABLE settings RENAME TO settings_hidden');
    let res;
    try {
      res = await suite.api().get<Problem>('/api/v1/settings/practice');
    } finally {
      await db.query('ALTER TABLE settings_hidden RENAME TO settings');
    }
    await new Promise((resolve) => setTimeout(resolve, 200));

    expect([res.status, res.body.code]).toEqual([500, 'internal_error']);
    expect(res.text).not.toMatch(/settings_hidden|relation|42P01|SELECT/);
    const mine = lines.filter((l) => l.includes(res.body.requestId)).map((l) => JSON.parse(l) as { level: number; error?: unknown });
    expect(mine).toHaveLength(2); // the error and the request line
    const errors = mine.filter((l) => l.level >= 50);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ method: 'GET', route: '/api/v1/settings/practice' });
    expect(errors[0].error).toMatchObject({ type: 'QueryFailedError', code: '42P01', sqlClass: '42' });
    expect(JSON.stringify(mine)).not.toMatch(/failed with status code|"stack"/);
  });

  it('a client error (class 22) is a 400 and logs no error', async () => {
    const res = await suite.api().get<Problem>('/api/v1/patients?updatedSince=0000-01-01T00:00:00Z');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect([res.status, res.body.code]).toEqual([400, 'validation_failed']);
    const mine = lines.filter((l) => l.includes(res.body.requestId)).map((l) => JSON.parse(l) as { level: number });
    expect(mine).toHaveLength(1);
    expect(mine.filter((l) => l.level >= 50)).toEqual([]);
  });

  it('an API request is one line (info, no query string); health probes and metrics are not logged', async () => {
    const ids = { read: 'log-read-1', live: 'log-live-1', ready: 'log-ready-1', metrics: 'log-metrics-1' };
    const read = await suite.api().get('/api/v1/patients?search=Jane', { 'x-request-id': ids.read });
    const live = await client(suite.app).get('/health/live', { 'x-request-id': ids.live });
    const ready = await client(suite.app).get('/health/ready', { 'x-request-id': ids.ready });
    const metrics = await client(suite.app).get('/metrics', { 'x-request-id': ids.metrics });
    await new Promise((resolve) => setTimeout(resolve, 200));

    expect([read.status, live.status, ready.status, metrics.status]).toEqual([200, 200, 200, 200]);
    const count = (id: string): number => lines.filter((l) => l.includes(id)).length;
    expect([count(ids.read), count(ids.live), count(ids.ready), count(ids.metrics)]).toEqual([1, 0, 0, 0]);
    const line = JSON.parse(lines.find((l) => l.includes(ids.read))!) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 30, requestId: ids.read, method: 'GET', route: '/api/v1/patients', statusCode: 200 });
    expect(JSON.stringify(line)).not.toMatch(/Jane|authorization|Bearer/i);
  });

  it("Nest's start-up lines (one per module and route) are debug, not info", () => {
    const parsed = lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { level: number; msg?: string; context?: string });
    const mapped = parsed.filter((l) => /^Mapped \{/.test(l.msg ?? ''));
    expect(mapped.length).toBeGreaterThan(20);
    expect(new Set(mapped.map((l) => l.level))).toEqual(new Set([20]));
    expect(parsed.filter((l) => l.level >= 30 && /^(InstanceLoader|RoutesResolver|RouterExplorer)$/.test(l.context ?? ''))).toEqual([]);
  });
});
