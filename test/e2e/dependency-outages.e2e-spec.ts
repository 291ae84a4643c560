import { BuiltProcess, sleep } from '../helpers/processes';
import { PrivateRedis } from '../helpers/private-redis';
import { freePort } from '../helpers/ports';

interface LogLine {
  time: number;
  level: number;
  msg: string;
  context?: string;
  role?: string;
  state?: string;
  stack?: unknown;
}

const parse = (output: string): LogLine[] =>
  output
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as LogLine);

/**
 * A Redis outage, as the built API (with its workers) and a worker process live it: one warning per
 * connection role when Redis goes and one info line when it is back, every line JSON, no stack; requests that
 * need no Redis keep answering meanwhile.
 */
describe('Redis outage: a bounded number of JSON lines and a counter', () => {
  // The built API and worker in child processes on a Redis of their own, not useApp: that Redis is killed, and their output is the subject.
  let redis: PrivateRedis;
  let api: BuiltProcess;
  let worker: BuiltProcess;
  let base: string;

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const env = { REDIS_URL: redis.url, LOG_FORMAT: 'json', LOG_LEVEL: 'info', PORT: String(port) };
    api = BuiltProcess.start('main.js', env);
    worker = BuiltProcess.start('worker.js', env);
    await api.waitUntilLive(base);
    await worker.waitFor(/worker started/);
  }, 120_000);

  afterAll(async () => {
    await redis.restart().catch(() => undefined);
    await api?.stop('SIGTERM');
    await worker?.stop('SIGTERM');
    await redis.kill();
  });

  it('keeps answering, logs each role going down once and coming back once, and answers no 503', async () => {
    const killedAt = Date.now();
    await redis.kill();
    const statuses: number[] = [];
    while (Date.now() - killedAt < 5_000) {
      statuses.push((await fetch(`${base}/api/v1/public/schedulers/nothing`)).status);
      await sleep(250);
    }
    const restartedAt = Date.now();
    await redis.restart();
    const back = (built: BuiltProcess): number => (built.output.match(/"state":"up"/g) ?? []).length;
    for (let i = 0; i < 150 && (back(api) < 5 || back(worker) < 5); i++) await sleep(100);
    const metrics = await (await fetch(`${base}/metrics`)).text();

    // The route needs no Redis (rate limits are counted per instance meanwhile): the unknown scheduler's 404.
    expect(new Set(statuses)).toEqual(new Set([404]));
    for (const built of [api, worker]) {
      const lines = parse(built.output); // throws on any line that is not JSON
      expect(lines.filter((l) => l.stack !== undefined || /\n\s+at /.test(l.msg ?? ''))).toEqual([]);
      const outage = lines.filter((l) => l.time >= killedAt && l.time < restartedAt && l.msg !== 'request completed');
      const downs = outage.filter((l) => l.context === 'Dependencies' && l.state === 'down');
      // One warning per role (commands, pubsub, queue producers, workers, queue events), nothing else.
      expect(downs.map((l) => l.role).sort()).toEqual(['commands', 'pubsub', 'queue-events', 'queue-producers', 'queue-workers']);
      expect(downs.every((l) => l.level === 40)).toBe(true);
      // And the API's rate limiter says once that it counts per instance until Redis is back.
      const limiter = outage.filter((l) => l.context === 'RateLimiter');
      expect(limiter.map((l) => l.level)).toEqual(built === api ? [40] : []);
      expect(outage).toHaveLength(downs.length + limiter.length);
      const ups = lines.filter((l) => l.context === 'Dependencies' && l.state === 'up');
      expect(ups.map((l) => [l.role, l.level]).sort()).toEqual(downs.map((l) => [l.role, 30]).sort());
    }
    // A request line each at info, never an error line.
    const answers = parse(api.output).filter((l) => l.time >= killedAt && l.time < restartedAt && l.msg === 'request completed');
    expect(answers).toHaveLength(statuses.length);
    expect(answers.every((l) => l.level === 30)).toBe(true);
    expect(metrics).toContain('http_service_unavailable_total 0');
    expect(metrics).toContain('dependency_state_changes_total{dependency="redis",role="commands",state="down"} 1');
    expect(metrics).toContain('dependency_state_changes_total{dependency="redis",role="commands",state="up"} 1');
    expect(metrics).toContain('dependency_up{dependency="redis",role="commands"} 1');
  }, 60_000);
});
