import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli';
import { BuiltProcess } from '../helpers/processes';
import { freePort } from '../helpers/ports';

/**
 * README "Run it": `npm start` with nothing configured, stopped with Ctrl-C. The terminal sends SIGINT to its
 * whole foreground process group; the embedded PostgreSQL must still be there for the API's last writes.
 */
describe('Ctrl-C under the zero-config start', () => {
  // The built API in a process group of its own on the embedded PostgreSQL, not useApp: the signal reaches both.
  const dataDir = mkdtempSync(join(tmpdir(), 'pm-interrupt-'));
  const started: BuiltProcess[] = [];
  let env: Record<string, string>;
  let base: string;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    env = {
      DATABASE_URL: '', // unset: the embedded PostgreSQL, as `npm start` with nothing configured
      DATA_DIR: dataDir,
      EMBEDDED_POSTGRES_PORT: String(await freePort()),
      HOST: '127.0.0.1',
      PORT: String(port),
      MIGRATIONS_RUN: 'true',
      // Nothing is written before the shutdown's final flush: every entry depends on it.
      AUDIT_FLUSH_INTERVAL_MS: '600000',
    };
  });

  afterAll(async () => {
    for (const api of started) if (api.running) await api.stop('SIGKILL');
    // A PostgreSQL left behind by a failed run (its pid from this run's own data directory).
    try {
      process.kill(Number(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]), 'SIGKILL');
    } catch {
      // not running
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  const startApi = async (): Promise<BuiltProcess> => {
    const api = BuiltProcess.start('main.js', env, { ownGroup: true });
    started.push(api);
    await api.waitUntilLive(base, 180_000);
    return api;
  };

  it('SIGINT to the whole process group right after the last answer loses no audit entry', async () => {
    let api = await startApi();
    const created = await runCli(['tenants:create', '--name', 'Interrupt Clinic'], env);
    expect(created.code).toBe(0);
    const key = (JSON.parse(created.stdout) as { apiKeys: { key: string }[] }).apiKeys[0].key;
    const request = async <T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T; requestId: string }> => {
      const res = await fetch(`${base}/api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, body: (await res.json()) as T, requestId: res.headers.get('x-request-id')! };
    };

    const audited: string[] = [];
    for (let i = 0; i < 3; i++) {
      const patient = await request<{ id: string }>('POST', '/patients', { firstName: 'Ada', lastName: `Interrupt ${i}` });
      expect(patient.status).toBe(201);
      const read = await request<unknown>('GET', `/patients/${patient.body.id}`);
      expect(read.status).toBe(200);
      audited.push(patient.requestId, read.requestId);
    }
    api.signalGroup('SIGINT');
    expect(await api.exited).toEqual({ code: 0, signal: null });
    // A failed write is a warning; entries the shutdown's retries could not write are an error line.
    expect(api.output).not.toMatch(/could not write|audit entries the database did not take/);

    api = await startApi();
    const log = await request<{ entries: { requestId: string }[] }>('GET', '/settings/audit-log?resourceType=patient&limit=100');
    expect(log.status).toBe(200);
    expect(log.body.entries.map((e) => e.requestId).sort()).toEqual([...audited].sort());
    expect(await api.stop('SIGTERM')).toEqual({ code: 0, signal: null });
  }, 420_000);
});
