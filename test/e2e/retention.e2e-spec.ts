import { DataSource } from 'typeorm';
import { uuidv7 } from '../../src/common/ids';
import { clock } from '../../src/common/time/clock';
import { RetentionSweeper } from '../../src/modules/retention/retention.sweep';
import { createTenant, dataSource, TestTenant } from '../helpers/app';
import type { EmailMessageDetailDto } from '../../src/modules/email/dto/email-message.dto';
import { useApp } from '../helpers/use-app';
import { NO_RATE_LIMITS } from '../helpers/patients';

const DAY = 86_400_000;
/**
 * The sweeps work across every tenant of the run's shared database, so these tests run with the clock
 * twenty years back: their cut-offs then reach only the rows they wrote themselves, never another
 * suite's.
 */
const BACK = -20 * 365 * DAY;

/** The first instant (UTC) of the month `months` from the clock's. */
function month(months: number): Date {
  const now = clock.now();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + months, 1));
}
const suffix = (d: Date): string => `${d.getUTCFullYear()}_${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
const days = (n: number): Date => new Date(clock.nowMs() + n * DAY);

describe('Retention sweeps (clock moved)', () => {
  const suite = useApp({ ...NO_RATE_LIMITS, REDIS_PREFIX: `${process.env.REDIS_PREFIX}:retention` });
  let db: DataSource;
  let tenants: TestTenant[];
  const scopes = (): { tenantId: string; mode: 'test' | 'live' }[] =>
    tenants.flatMap((t) => [
      { tenantId: t.id, mode: 'test' as const },
      { tenantId: t.id, mode: 'live' as const },
    ]);

  beforeAll(async () => {
    db = dataSource(suite.app);
    tenants = [await createTenant(suite.app), await createTenant(suite.app)];
  });
  afterEach(() => clock.setOffsetMs(Number(process.env.CLOCK_OFFSET_MS ?? 0)));

  const sweep = () => suite.app.get(RetentionSweeper).runOnce();

  /** The month partitions of a table, by name. */
  const partitions = async (table: string): Promise<string[]> =>
    (
      await db.query<{ name: string }[]>(
        `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass`,
        [table],
      )
    ).map((r) => r.name);

  it('creates months ahead, drops whole months past AUDIT_RETENTION_MONTHS (entries and their patients), keeps the rest', async () => {
    const base = clock.offsetMs() + BACK;
    // 75 months before "now": the partitions of that time do not exist, so its entries go to the default partition.
    clock.setOffsetMs(base);
    const at = (months: number, day: number): Date => new Date(month(months).getTime() + day * DAY + 1234);
    const wanted = [-75, -74, -73, -72, -71];
    const rows: { id: string; at: Date; tenantId: string; mode: string; patient: string }[] = [];
    for (const m of wanted) {
      for (const [i, scope] of scopes().entries()) {
        rows.push({ id: uuidv7(), at: at(m, i), ...scope, patient: uuidv7() });
      }
    }
    for (const r of rows) {
      await db.query(
        `INSERT INTO audit_log (id, tenant_id, mode, at, api_key_id, action, resource_type, resource_id, status, request_id, ip)
         VALUES ($1, $2, $3, $4, NULL, 'patient.read', 'patient', $5, 200, 'retention', NULL)`,
        [r.id, r.tenantId, r.mode, r.at, r.patient],
      );
      await db.query(`INSERT INTO audit_log_patients (tenant_id, mode, patient_id, at, audit_id) VALUES ($1, $2, $3, $4, $5)`, [
        r.tenantId,
        r.mode,
        r.patient,
        r.at,
        r.id,
      ]);
    }
    const where = (table: string) => `SELECT tableoid::regclass::text AS partition FROM ${table} WHERE request_id = 'retention'`;
    expect(new Set((await db.query<{ partition: string }[]>(where('audit_log'))).map((r) => r.partition))).toEqual(
      new Set(['audit_log_default']),
    );

    // The clock at month -75: its month and three ahead are made, and their entries move out of the default partition.
    clock.setOffsetMs(base + (month(-75).getTime() - clock.now().getTime()) + 3 * DAY);
    const made = [0, 1, 2, 3].map((m) => suffix(month(m))); // months -75 to -72 of "now"
    const early = await sweep();
    expect(early.partitions.created).toEqual(
      expect.arrayContaining([...made.map((s) => `audit_log_p${s}`), ...made.map((s) => `audit_log_patients_p${s}`)]),
    );
    const placed = await db.query<{ partition: string; month: string }[]>(
      `SELECT tableoid::regclass::text AS partition, to_char(at AT TIME ZONE 'UTC', 'YYYY_MM') AS month FROM audit_log WHERE request_id = 'retention'`,
    );
    for (const p of placed) expect(p.partition).toBe(made.includes(p.month) ? `audit_log_p${p.month}` : 'audit_log_default');
    const patientsPlaced = await db.query<{ partition: string; month: string }[]>(
      `SELECT tableoid::regclass::text AS partition, to_char(at AT TIME ZONE 'UTC', 'YYYY_MM') AS month FROM audit_log_patients WHERE audit_id = ANY($1::uuid[])`,
      [rows.map((r) => r.id)],
    );
    expect(patientsPlaced).toHaveLength(rows.length);
    for (const p of patientsPlaced)
      expect(p.partition).toBe(made.includes(p.month) ? `audit_log_patients_p${p.month}` : 'audit_log_patients_default');

    // Back at "now" (twenty years back): the months before month -72 are dropped whole, in both tables.
    clock.setOffsetMs(base);
    const pass = await sweep();
    const dropped = [-75, -74, -73].map((m) => suffix(month(m)));
    expect(pass.partitions.dropped.sort()).toEqual(
      [...dropped.map((s) => `audit_log_p${s}`), ...dropped.map((s) => `audit_log_patients_p${s}`)].sort(),
    );
    for (const ahead of [0, 1, 2, 3]) expect(await partitions('audit_log')).toContain(`audit_log_p${suffix(month(ahead))}`);
    expect(await partitions('audit_log')).toContain(`audit_log_p${suffix(month(-72))}`);
    const left = await db.query<{ id: string }[]>(`SELECT id FROM audit_log WHERE request_id = 'retention' ORDER BY id`);
    const kept = rows.filter((r) => r.at >= month(-72));
    expect(left.map((r) => r.id)).toEqual(kept.map((r) => r.id).sort());
    expect(kept).toHaveLength(2 * scopes().length); // months -72 and -71, every tenant and mode
    const patientsLeft = await db.query<{ audit_id: string }[]>(
      `SELECT audit_id FROM audit_log_patients WHERE audit_id = ANY($1::uuid[]) ORDER BY audit_id`,
      [rows.map((r) => r.id)],
    );
    expect(patientsLeft.map((r) => r.audit_id)).toEqual(kept.map((r) => r.id).sort());

    // A second pass has nothing left to do, and two workers at once do it once.
    const [a, b] = await Promise.all([sweep(), sweep()]);
    expect([...a.partitions.created, ...a.partitions.dropped, ...b.partitions.created, ...b.partitions.dropped]).toEqual([]);
  });

  it('deletes events past EVENTS_RETENTION_DAYS with their deliveries and attempts, in every tenant and mode, and nothing newer', async () => {
    clock.setOffsetMs(clock.offsetMs() + BACK);
    const made: { event: string; delivery: string; attempt: string; old: boolean }[] = [];
    for (const scope of scopes()) {
      const endpoint = uuidv7();
      await db.query(
        `INSERT INTO webhook_endpoints (id, tenant_id, mode, url, events, secret, enabled, created_at, updated_at)
         VALUES ($1, $2, $3, 'https://hooks.example.com/x', '{patient.created}', 'v1.x.y', true, $4, $4)`,
        [endpoint, scope.tenantId, scope.mode, days(-60)],
      );
      for (const [age, old] of [
        [-45, true],
        [-31, true],
        [-29, false],
        [-1, false],
      ] as const) {
        const ids = { event: uuidv7(), delivery: uuidv7(), attempt: uuidv7(), old };
        await db.query(
          `INSERT INTO events (id, tenant_id, mode, type, payload, created_at, dispatched_at) VALUES ($1, $2, $3, 'patient.created', '{}', $4, $4)`,
          [ids.event, scope.tenantId, scope.mode, days(age)],
        );
        await db.query(
          `INSERT INTO webhook_deliveries (id, tenant_id, mode, endpoint_id, event_id, event_type, status, attempt_count, max_attempts, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, 'patient.created', 'succeeded', 1, 15, $6, $6)`,
          [ids.delivery, scope.tenantId, scope.mode, endpoint, ids.event, days(age)],
        );
        await db.query(
          `INSERT INTO webhook_delivery_attempts (id, tenant_id, mode, delivery_id, attempt, started_at, status_code, duration_ms)
           VALUES ($1, $2, $3, $4, 1, $5, 200, 12)`,
          [ids.attempt, scope.tenantId, scope.mode, ids.delivery, days(age)],
        );
        made.push(ids);
      }
    }
    const remaining = async (table: string, column: keyof (typeof made)[number]) =>
      (await db.query<{ id: string }[]>(`SELECT id FROM ${table} WHERE id = ANY($1::uuid[])`, [made.map((m) => m[column])]))
        .map((r) => r.id)
        .sort();

    const pass = await sweep();
    expect(pass.eventsDeleted).toBe(made.filter((m) => m.old).length);
    const kept = made.filter((m) => !m.old);
    expect(await remaining('events', 'event')).toEqual(kept.map((m) => m.event).sort());
    expect(await remaining('webhook_deliveries', 'delivery')).toEqual(kept.map((m) => m.delivery).sort());
    expect(await remaining('webhook_delivery_attempts', 'attempt')).toEqual(kept.map((m) => m.attempt).sort());

    // Bounded per pass, and safe with several workers: two sweeps at once delete each event once.
    const more = await Promise.all(
      Array.from({ length: 30 }, async () => {
        const id = uuidv7();
        await db.query(
          `INSERT INTO events (id, tenant_id, mode, type, payload, created_at, dispatched_at) VALUES ($1, $2, 'test', 'patient.created', '{}', $3, $3)`,
          [id, tenants[0].id, days(-40)],
        );
        return id;
      }),
    );
    const sweeper = suite.app.get(RetentionSweeper);
    expect((await sweeper.runOnce(10)).eventsDeleted).toBe(10);
    const [a, b] = await Promise.all([sweeper.runOnce(), sweeper.runOnce()]);
    expect(a.eventsDeleted + b.eventsDeleted).toBe(20);
    expect(await db.query(`SELECT id FROM events WHERE id = ANY($1::uuid[])`, [more])).toEqual([]);
  });

  it('clears the bodies of email sent before EMAIL_BODY_RETENTION_DAYS, keeping the message; GET shows bodyClearedAt', async () => {
    clock.setOffsetMs(clock.offsetMs() + BACK);
    const made: { id: string; key: string; cleared: boolean }[] = [];
    for (const [i, scope] of scopes().entries()) {
      const key = scope.mode === 'test' ? tenants[Math.floor(i / 2)].testKey : tenants[Math.floor(i / 2)].liveKey;
      for (const [status, sentDaysAgo, cleared] of [
        ['sent', 31, true],
        ['sent', 29, false],
        ['failed', 60, false],
        ['queued', 60, false],
      ] as const) {
        const id = uuidv7();
        await db.query(
          `INSERT INTO email_messages (id, tenant_id, mode, to_address, subject, html_body, text_body, status, attempts, next_attempt_at, sent_at, created_at, updated_at)
           VALUES ($1, $2, $3, 'ada@example.test', 'Your results', '<p>Private</p>', 'Private', $4, 1, $5, $6, $5, $5)`,
          [id, scope.tenantId, scope.mode, status, days(-sentDaysAgo - 1), status === 'sent' ? days(-sentDaysAgo) : null],
        );
        made.push({ id, key, cleared });
      }
    }
    const pass = await sweep();
    expect(pass.emailBodiesCleared).toBe(made.filter((m) => m.cleared).length);
    for (const m of made) {
      const res = await suite.api(m.key).get<EmailMessageDetailDto>(`/api/v1/emails/messages/${m.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ to: 'ada@example.test', subject: 'Your results' });
      if (m.cleared) {
        expect(res.body).toMatchObject({ status: 'sent', htmlContent: null, textContent: null });
        expect(Math.abs(Date.parse(res.body.bodyClearedAt!) - clock.nowMs())).toBeLessThan(60_000);
      } else {
        expect(res.body).toMatchObject({ htmlContent: '<p>Private</p>', textContent: 'Private', bodyClearedAt: null });
      }
    }
    expect((await sweep()).emailBodiesCleared).toBe(0);
  });
});
