import Redis from 'ioredis';
import { DateTime } from 'luxon';
import { Client } from 'pg';
import { runCli } from '../helpers/cli';
import { eventually } from '../helpers/eventually';
import { SmtpReceiver } from '../helpers/smtp-receiver';

/**
 * The app through the engines a platform scales out to, as .ci/scale-out starts them: two APIs and a worker
 * (separate processes) over PgBouncer in transaction mode, a streaming read replica and a three-master
 * Redis Cluster. Every request goes over real HTTP; each check alternates or races the two APIs.
 */
const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run this suite through .ci/scale-out`);
  return value;
};
const [A, B] = env('SCALE_OUT_APIS').split(',');
const APIS = [A, B];

interface Answer<T> {
  status: number;
  headers: Headers;
  body: T;
}
async function call<T = Record<string, unknown>>(
  base: string,
  method: string,
  path: string,
  key?: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer<T>> {
  const res = await fetch(`${base}/api/v1${path}`, {
    method,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    body: (text && /json/.test(res.headers.get('content-type') ?? '') ? JSON.parse(text) : text) as T,
  };
}

interface Tenant {
  id: string;
  testKey: string;
  liveKey: string;
}
let tenants = 0;
async function createTenant(): Promise<Tenant> {
  const run = await runCli(['tenants:create', '--name', `Scale-out Clinic ${++tenants}`]);
  if (run.code !== 0) throw new Error(`tenants:create failed: ${run.stderr}`);
  const created = JSON.parse(run.stdout) as { tenant: { id: string }; apiKeys: { mode: string; key: string }[] };
  const key = (mode: string): string => created.apiKeys.find((k) => k.mode === mode)!.key;
  return { id: created.tenant.id, testKey: key('test'), liveKey: key('live') };
}

async function queryOne<T>(url: string, sql: string): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows[0] as T;
  } finally {
    await client.end();
  }
}

/** Scans of the patients table that the replica served (its own statistics: a standby counts its reads). */
const replicaPatientScans = async (): Promise<number> =>
  Number(
    (
      await queryOne<{ scans: string }>(
        env('SCALE_OUT_REPLICA'),
        `SELECT coalesce(sum(seq_scan + coalesce(idx_scan, 0)), 0) AS scans FROM pg_stat_user_tables WHERE relname = 'patients'`,
      )
    ).scans,
  );

/** Transactions PgBouncer passed to the primary's `practice` database. */
async function bouncerTransactions(): Promise<number> {
  const client = new Client({ connectionString: env('SCALE_OUT_BOUNCER_ADMIN') });
  await client.connect();
  try {
    const rows = (await client.query('SHOW STATS')).rows as { database: string; total_xact_count: string }[];
    return Number(rows.find((r) => r.database === 'practice')?.total_xact_count ?? 0);
  } finally {
    await client.end();
  }
}

describe('Scaled out: PgBouncer, a read replica, Redis Cluster, two APIs and a worker', () => {
  let clinic: Tenant;
  let bouncerBefore: number;
  beforeAll(async () => {
    bouncerBefore = await bouncerTransactions();
    clinic = await createTenant();
  });

  it('has both APIs and the worker ready', async () => {
    for (const base of APIS) expect((await fetch(`${base}/health/ready`)).status).toBe(200);
    expect((await fetch(`${env('SCALE_OUT_WORKER')}/health/ready`)).status).toBe(200);
  });

  it('answers 401 on one API at once for a key revoked through the other', async () => {
    const created = await call<{ id: string; key: string }>(A, 'POST', '/settings/portal-access-keys', clinic.liveKey, {
      name: 'front desk',
      role: 'STAFF',
    });
    expect(created.status).toBe(201);
    expect((await call(B, 'GET', '/patients', created.body.key)).status).toBe(200);
    expect((await call(A, 'DELETE', `/settings/portal-access-keys/${created.body.id}`, clinic.liveKey)).status).toBe(204);
    expect((await call(B, 'GET', '/patients', created.body.key)).status).toBe(401);
    expect((await call(A, 'GET', '/patients', created.body.key)).status).toBe(401);
  });

  it('writes through PgBouncer, reads by id from the primary at once, and serves lists and search from the replica', async () => {
    const scansBefore = await replicaPatientScans();
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const created = await call<{ id: string }>(APIS[i % 2], 'POST', '/patients', clinic.liveKey, {
        firstName: 'Ada',
        lastName: `Replica${i}`,
      });
      expect(created.status).toBe(201);
      // By id on the other API, straight after the write: the primary, never a replica that may lag.
      const read = await call<{ id: string }>(APIS[(i + 1) % 2], 'GET', `/patients/${created.body.id}`, clinic.liveKey);
      expect([read.status, read.body.id]).toEqual([200, created.body.id]);
      ids.push(created.body.id);
    }
    // A list may lag its replica by up to DATABASE_READ_MAX_LAG_MS; it catches up.
    await eventually(async () => {
      for (const base of APIS) {
        const list = await call<{ patients: { id: string }[] }>(base, 'GET', '/patients?limit=100', clinic.liveKey);
        expect(list.status).toBe(200);
        expect(list.body.patients.map((p) => p.id)).toEqual(expect.arrayContaining(ids));
        const search = await call<{ patients: { id: string }[] }>(base, 'GET', '/patients?search=Replica3', clinic.liveKey);
        expect(search.body.patients.map((p) => p.id)).toEqual([ids[3]]);
      }
    });
    await eventually(async () => expect(await replicaPatientScans()).toBeGreaterThan(scansBefore), 10_000, 250);
  });

  it('replays an Idempotency-Key on the other API', async () => {
    const headers = { 'idempotency-key': `scale-out-${Date.now()}` };
    const first = await call<{ id: string }>(A, 'POST', '/patients', clinic.liveKey, { firstName: 'Once', lastName: 'Only' }, headers);
    const again = await call<{ id: string }>(B, 'POST', '/patients', clinic.liveKey, { firstName: 'Once', lastName: 'Only' }, headers);
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('books one slot once when twenty requests race for it across both APIs', async () => {
    const provider = await call<{ id: string }>(A, 'POST', '/scheduling/providers', clinic.liveKey, {
      name: 'Dr. Race',
      timezone: 'UTC',
      workingHours: [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, start: '00:00', end: '24:00' })),
    });
    expect(provider.status).toBe(201);
    const patient = await call<{ id: string }>(B, 'POST', '/patients', clinic.liveKey, { firstName: 'Rae', lastName: 'Cer' });
    const datetime = DateTime.utc().startOf('day').plus({ days: 3, hours: 10 }).toISO();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(APIS[i % 2], 'POST', '/scheduling/book', clinic.liveKey, {
          patientId: patient.body.id,
          providerId: provider.body.id,
          datetime,
        }),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([201, ...Array.from({ length: 19 }, () => 409)]);
  });

  it('sends an email through the worker to the SMTP relay', async () => {
    // The worker's pooled SMTP connection stays open: stop waits for it no longer than a second.
    const relay = await new SmtpReceiver().start(Number(env('SCALE_OUT_SMTP_PORT')), { closeTimeoutMs: 1000 });
    try {
      const sent = await call<{ messageId: string }>(A, 'POST', '/emails/send', clinic.liveKey, {
        to: 'scale-out@example.test',
        subject: 'Through the cluster',
        htmlContent: '<p>Hello</p>',
      });
      expect(sent.status).toBe(202);
      await eventually(async () => expect(relay.received.map((m) => m.headers.subject)).toContain('Through the cluster'), 20_000, 100);
      await eventually(async () => {
        const message = await call<{ status: string }>(B, 'GET', `/emails/messages/${sent.body.messageId}`, clinic.liveKey);
        expect(message.body.status).toBe('sent');
      });
    } finally {
      await relay.stop();
    }
  });

  it("runs a test-mode reminder when the tenant's test clock passes it", async () => {
    const key = clinic.testKey;
    const template = await call<{ id: string }>(A, 'POST', '/emails/templates', key, {
      name: 'Reminder',
      subject: 'Soon',
      textContent: 'Hi',
    });
    const type = await call<{ id: string }>(B, 'POST', '/scheduling/appointment-types', key, {
      name: 'Check-up',
      durationMinutes: 30,
      reminders: [{ offsetMinutes: 60, channel: 'email', templateId: template.body.id }],
    });
    const provider = await call<{ id: string }>(A, 'POST', '/scheduling/providers', key, {
      name: 'Dr. Clock',
      timezone: 'UTC',
      workingHours: [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, start: '00:00', end: '24:00' })),
    });
    const patient = await call<{ id: string }>(B, 'POST', '/patients', key, {
      firstName: 'Tim',
      lastName: 'Er',
      email: 'timer@example.test',
    });
    const booked = await call<{ id: string; reminders: { sendAt: string }[] }>(A, 'POST', '/scheduling/book', key, {
      patientId: patient.body.id,
      providerId: provider.body.id,
      appointmentTypeId: type.body.id,
      datetime: DateTime.utc().startOf('day').plus({ days: 2, hours: 14 }).toISO(),
    });
    expect(booked.status).toBe(201);
    const to = new Date(Date.parse(booked.body.reminders[0].sendAt) + 60_000).toISOString();
    const advanced = await call<{ ran: { reminders: number } }>(B, 'POST', '/test-helpers/clock/advance', key, { to });
    expect([advanced.status, advanced.body.ran.reminders]).toEqual([200, 1]);
    await eventually(async () => {
      const list = await call<{ messages: { kind: string; status: string; transport: string }[] }>(
        A,
        'GET',
        `/emails/messages?appointmentId=${booked.body.id}`,
        key,
      );
      expect(list.body.messages.map((m) => [m.kind, m.status, m.transport])).toEqual([['reminder', 'sent', 'test']]);
    });
  });

  it("counts one key's rate limit once across both APIs", async () => {
    const limited = await createTenant();
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) statuses.push((await call(APIS[i % 2], 'GET', '/patients', limited.testKey)).status);
    const limit = Number(env('RATE_LIMIT_TEST_PER_DAY'));
    expect(statuses).toEqual([...Array.from({ length: limit }, () => 200), ...Array.from({ length: 40 - limit }, () => 429)]);
  });

  it("keeps the app's keys in the Redis Cluster, spread over its masters", async () => {
    const counts = await Promise.all(
      env('REDIS_CLUSTER_NODES')
        .split(',')
        .map(async (node) => {
          const [host, port] = node.split(':');
          const redis = new Redis({ host, port: Number(port), lazyConnect: true });
          await redis.connect();
          try {
            return await redis.dbsize();
          } finally {
            redis.disconnect();
          }
        }),
    );
    expect(counts.filter((n) => n > 0).length).toBeGreaterThanOrEqual(2);
  });

  it("went through PgBouncer: its statistics count the app's transactions", async () => {
    // At least one transaction for each patient this suite wrote.
    expect((await bouncerTransactions()) - bouncerBefore).toBeGreaterThanOrEqual(12);
  });
});
