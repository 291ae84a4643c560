import { ChildProcess, execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { eventually } from '../helpers/eventually';
import { BuiltProcess, sleep } from '../helpers/processes';
import { freePort } from '../helpers/ports';

const HEALTHCHECK = join(__dirname, '..', '..', 'dist', 'healthcheck.js');

/** Runs the image's health check (`node dist/healthcheck.js`) with `env`; resolves its exit code. */
const healthcheck = (env: Record<string, string>): Promise<number> =>
  new Promise((resolve) =>
    execFile(process.execPath, [HEALTHCHECK], { env: { ...process.env, ...env }, timeout: 30_000 }, (err) =>
      resolve(err ? (typeof err.code === 'number' ? err.code : 1) : 0),
    ),
  );

/** docs/operations.md, "Health": the worker, which has no API listener, reports its health on WORKER_HEALTH_PORT. */
describe('Worker health (WORKER_HEALTH_PORT)', () => {
  // The built worker in a child process with a Redis of its own, not useApp: the health port and the Redis it kills are the subject.
  let redis: ChildProcess;
  let worker: BuiltProcess;

  afterAll(async () => {
    if (worker?.running) await worker.stop('SIGKILL');
    redis?.kill('SIGKILL');
  });

  /** The built worker with a Redis of its own (to take away or restrict: never the shared one), started; its environment. */
  const startWorker = async (): Promise<{ env: Record<string, string>; redisPort: number; healthPort: number }> => {
    // The previous test's worker goes first: left running, it would outlive the run.
    if (worker?.running) await worker.stop('SIGKILL');
    redis?.kill('SIGKILL');
    const redisPort = await freePort();
    redis = spawn('redis-server', ['--bind', '127.0.0.1', '--port', String(redisPort), '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    const healthPort = await freePort();
    const env = {
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      WORKER_HEALTH_PORT: String(healthPort),
      HOST: '127.0.0.1',
      PORT: String(await freePort()), // nothing listens there: the check must ask the worker's port
      LOG_LEVEL: 'info', // 'worker started' is an info line
    };
    await sleep(300);
    worker = BuiltProcess.start('worker.js', env);
    await worker.waitFor(/worker started/);
    return { env, redisPort, healthPort };
  };

  it('answers /health/ready 200 while PostgreSQL, Redis and its queue workers are up, 503 once Redis is gone', async () => {
    const { env, healthPort } = await startWorker();
    const base = `http://127.0.0.1:${healthPort}`;

    expect((await fetch(`${base}/health/live`)).status).toBe(200);
    const ready = await fetch(`${base}/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({
      status: 'ok',
      info: { database: { status: 'up' }, redis: { status: 'up' }, workers: { status: 'up' } },
    });
    expect((await fetch(`${base}/patients`)).status).toBe(404);
    expect(await healthcheck(env)).toBe(0);

    redis.kill('SIGKILL');
    await new Promise((resolve) => redis.once('exit', resolve));
    const down = await fetch(`${base}/health/ready`);
    expect(down.status).toBe(503);
    expect(((await down.json()) as { info: unknown }).info).toMatchObject({ database: { status: 'up' }, redis: { status: 'down' } });
    expect(await healthcheck(env)).toBe(1);
    // SIGTERM stops it though Redis stays away (a graceful close would wait for Redis for good).
    expect(await worker.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    expect(worker.output).toMatch(/"msg":"stopped"/);
  }, 180_000);

  it('answers 503 while its queues cannot work though Redis answers (scripts refused), and 200 again once they can', async () => {
    const { redisPort, healthPort } = await startWorker();
    const ready = async (): Promise<{ status: number; body: { info: Record<string, { status: string; message?: string }> } }> => {
      const res = await fetch(`http://127.0.0.1:${healthPort}/health/ready`);
      return { status: res.status, body: (await res.json()) as { info: Record<string, { status: string; message?: string }> } };
    };
    await eventually(async () => expect((await ready()).status).toBe(200), 20_000);

    // Every BullMQ fetch is a Lua script: refused, no job can run, while PING still answers.
    const acl = (rule: string): Promise<void> =>
      new Promise((resolve, reject) =>
        execFile('redis-cli', ['-p', String(redisPort), 'ACL', 'SETUSER', 'default', rule], (err) =>
          err ? reject(new Error(err.message)) : resolve(),
        ),
      );
    await acl('-@scripting');
    const failing = await eventually(async () => {
      const answer = await ready();
      expect(answer.status).toBe(503);
      return answer.body.info;
    }, 20_000);
    expect(failing).toMatchObject({
      redis: { status: 'up' },
      workers: { status: 'down', message: expect.stringMatching(/^queue [a-z-]+: ReplyError/) },
    });
    // Logged once per interval, not once per failed fetch.
    expect(worker.output.match(/ReplyError/g)?.length ?? 0).toBeLessThan(20);

    await acl('+@all');
    await eventually(async () => expect((await ready()).status).toBe(200), 30_000);
    await worker.stop('SIGTERM');
    redis.kill('SIGKILL');
  }, 120_000);
});
