import { NotFoundException } from '@nestjs/common';
import type { PatientListDto } from '../../src/modules/patients/dto/patient.dto';
import { runMigrations } from '../../src/database/database-options';
import { ReadReplicas } from '../../src/database/read-replicas';
import { unscopedSql } from '../../src/database/sql';
import { dataSource } from '../helpers/app';
import { eventually } from '../helpers/eventually';
import { createForm, FORMS } from '../helpers/forms';
import { LogCapture } from '../helpers/log-capture';
import { createPatient, NO_RATE_LIMITS, PATIENTS } from '../helpers/patients';
import { PrimaryAndReplica } from '../helpers/pg-replica';
import { createProvider, SCHEDULERS, SCHEDULING } from '../helpers/scheduling';
import { useApp } from '../helpers/use-app';

const DATABASE = 'practice';
const APP = 'replicas-e2e';
const API = '/api/v1';
const CONNECTIONS = 'SELECT application_name AS name FROM pg_stat_activity WHERE datname = $1 AND application_name LIKE $2';

/** Every collection route that needs no parent: each reads from a replica when there is one. */
const COLLECTIONS = [
  `${API}/settings/portal-access-keys`,
  `${PATIENTS}/custom-fields`,
  PATIENTS,
  `${PATIENTS}?search=Replica`,
  `${PATIENTS}/tags`,
  `${SCHEDULING}/providers`,
  `${SCHEDULING}/appointment-types`,
  `${SCHEDULING}/appointments`,
  `${SCHEDULING}/waitlist`,
  `${SCHEDULING}/series`,
  SCHEDULERS,
  FORMS,
  `${API}/sms/templates`,
  `${API}/sms/messages`,
  `${API}/events`,
  `${API}/settings/audit-log`,
  `${API}/webhooks`,
  `${API}/emails/templates`,
  `${API}/emails/messages`,
  `${API}/emails/sequences`,
];

/**
 * DATABASE_READ_URLS on a primary and a streaming replica of the suite's own (test/helpers/pg-replica.ts):
 * list and search routes, the audit and access logs and GET /events read from the replica; reads by id and
 * writes from the primary; a replica that is down or lags more than DATABASE_READ_MAX_LAG_MS is skipped for
 * the primary. Which server answered is read from the servers' statement logs: the replica pool names itself
 * `<PGAPPNAME>/read-replica`, and a tenant's statements carry its id among their parameters.
 */
describe('Read replicas', () => {
  let pair: PrimaryAndReplica;

  beforeAll(async () => {
    pair = await PrimaryAndReplica.start();
    await pair.query('primary', `CREATE DATABASE ${DATABASE}`);
    await runMigrations(pair.primaryUrl(DATABASE));
  }, 180_000);

  /** The replica pool's logged statements and parameters since `from` (a length of the replica's log) that mention `text`. */
  const replicaReads = (from: number, text: string): string[] =>
    pair
      .replicaLog()
      .slice(from)
      .split('\n')
      .filter((line) => line.includes(`${APP}/read-replica:`) && line.includes(text));

  describe('with DATABASE_READ_URLS', () => {
    const capture = new LogCapture();
    beforeAll(() => capture.start());
    const suite = useApp(() => ({
      ...NO_RATE_LIMITS,
      WORKERS: 'off',
      DATABASE_URL: pair.primaryUrl(DATABASE),
      DATABASE_READ_URLS: pair.replicaUrl(DATABASE),
      DATABASE_READ_MAX_LAG_MS: '300',
      PGAPPNAME: APP,
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}:replicas`,
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
    }));
    afterAll(() => capture.stop());

    /** Whether a GET of `path` read the tenant's rows on the replica. */
    async function readOnReplica(path: string): Promise<boolean> {
      const from = pair.replicaLog().length;
      const res = await suite.api().get(path);
      expect([path, res.status]).toEqual([path, 200]);
      return replicaReads(from, suite.tenant.id).length > 0;
    }

    const searchIds = async (name: string): Promise<string[]> => {
      const res = await suite.api().get<PatientListDto>(`${PATIENTS}?search=${name}`);
      expect(res.status).toBe(200);
      return res.body.patients.map((p) => p.id);
    };

    const rotationLines = (): Record<string, unknown>[] =>
      capture.lines.filter((l) => l.includes('ReadReplicas')).map((l) => JSON.parse(l) as Record<string, unknown>);

    it('serves lists, search, the audit and access logs and events from the replica; reads by id and writes from the primary', async () => {
      const api = suite.api();
      const patient = await createPatient(suite.app, suite.tenant.testKey, { firstName: 'Rita', lastName: 'Replica' });
      const provider = await createProvider(suite.app, suite.tenant.testKey, { timezone: 'UTC' });
      const form = await createForm(suite.app, suite.tenant.testKey);
      const nested = [
        `${PATIENTS}/${patient.id}/access-log`,
        `${SCHEDULING}/providers/${provider.id}/time-off`,
        `${FORMS}/${form.id}/submissions`,
      ];
      for (const path of [...COLLECTIONS, ...nested]) {
        await eventually(async () => expect([path, await readOnReplica(path)]).toEqual([path, true]), 10_000, 100);
      }
      // The search ran on the replica, its term among the parameters, from the pool named after PGAPPNAME.
      const from = pair.replicaLog().length;
      await eventually(async () => expect(await searchIds('Replica')).toEqual([patient.id]));
      expect(replicaReads(from, `'%Replica%'`).length).toBeGreaterThan(0);

      const [replicaFrom, primaryFrom] = [pair.replicaLog().length, pair.primaryLog().length];
      expect((await api.get(`${PATIENTS}/${patient.id}`)).status).toBe(200);
      expect((await api.put(`${PATIENTS}/${patient.id}`, { lastName: 'Primary' })).status).toBe(200);
      expect((await api.get(`${SCHEDULING}/providers/${provider.id}`)).status).toBe(200);
      expect(replicaReads(replicaFrom, suite.tenant.id)).toEqual([]);
      expect(pair.primaryLog().slice(primaryFrom)).toContain(patient.id);
      expect(pair.primaryLog().slice(primaryFrom)).toContain(provider.id);
      const connections = await pair.query<{ name: string }>('replica', CONNECTIONS, [DATABASE, `${APP}%`]);
      expect(new Set(connections.map((c) => c.name))).toEqual(new Set([`${APP}/read-replica`]));
    });

    it('lists a patient created on the primary once the replica has replayed it', async () => {
      const created = await createPatient(suite.app, suite.tenant.testKey, { firstName: 'Newly', lastName: 'Streamed' });
      await eventually(async () => expect(await searchIds('Streamed')).toEqual([created.id]));
      expect(await readOnReplica(`${PATIENTS}?search=Streamed`)).toBe(true);
    });

    it('serves the lists from the primary while the replica is down, and from the replica again once it is back', async () => {
      const patient = await createPatient(suite.app, suite.tenant.testKey, { firstName: 'Outage', lastName: 'Survivor' });
      await eventually(async () => expect(await searchIds('Survivor')).toEqual([patient.id]));
      const lines = rotationLines().length;
      await pair.stopReplica();
      try {
        const started = Date.now();
        expect(await searchIds('Survivor')).toEqual([patient.id]);
        for (const path of [`${API}/events`, `${API}/settings/audit-log`, `${SCHEDULING}/providers`]) {
          expect((await suite.api().get(path)).status).toBe(200);
        }
        expect(Date.now() - started).toBeLessThan(5_000);
        // A line for the outage, which names the replica and the reason, never a patient.
        await eventually(async () => expect(rotationLines().slice(lines)).not.toEqual([]));
        expect(rotationLines()[lines]).toMatchObject({
          level: 40, // warn
          state: 'out of rotation',
          reason: 'unreachable',
          replica: `127.0.0.1:${pair.replicaPort}/${DATABASE}`,
        });
        expect(JSON.stringify(rotationLines())).not.toMatch(/Outage|Survivor/);
      } finally {
        await pair.startReplica();
      }
      await eventually(async () => expect(await readOnReplica(`${PATIENTS}?search=Survivor`)).toBe(true), 20_000, 200);
      expect(rotationLines().at(-1)).toMatchObject({ level: 30, state: 'in rotation' }); // info;
    });

    it('answers a read that fails on the replica from the primary, and takes the replica out until a check finds it back', async () => {
      await eventually(async () => expect(await readOnReplica(PATIENTS)).toBe(true), 20_000, 200);
      const lines = rotationLines().length;
      await eventually(async () => {
        const servers: string[] = [];
        // On the replica the read ends its own connection, as a replica going away would.
        const standby = await suite.app.get(ReadReplicas).read(async (db) => {
          servers.push(db ? 'replica' : 'primary');
          if (db) await unscopedSql(db, 'SELECT pg_terminate_backend(pg_backend_pid())');
          const [row] = await unscopedSql<{ standby: boolean }[]>(db ?? dataSource(suite.app), 'SELECT pg_is_in_recovery() AS standby');
          return row.standby;
        });
        expect([servers, standby]).toEqual([['replica', 'primary'], false]);
      });
      expect(rotationLines().slice(lines)).toContainEqual(
        expect.objectContaining({ state: 'out of rotation', reason: 'unreachable', code: '57P01' }),
      );
      await eventually(async () => expect(await readOnReplica(PATIENTS)).toBe(true), 20_000, 200);
      expect(rotationLines().at(-1)).toMatchObject({ state: 'in rotation' });
    });

    it("answers the work's own refusal (a 404) once, from the replica, without a second run on the primary", async () => {
      await eventually(async () => expect(await readOnReplica(PATIENTS)).toBe(true), 20_000, 200);
      const servers: string[] = [];
      const refused = new NotFoundException('no such parent');
      const read = suite.app.get(ReadReplicas).read(async (db) => {
        servers.push(db ? 'replica' : 'primary');
        throw refused;
      });
      await expect(read).rejects.toBe(refused);
      expect(servers).toEqual(['replica']);
    });

    it('serves the lists from the primary while the replica lags more than DATABASE_READ_MAX_LAG_MS', async () => {
      await eventually(async () => expect(await readOnReplica(PATIENTS)).toBe(true), 20_000, 200);
      await pair.query('replica', 'SELECT pg_wal_replay_pause()');
      try {
        const late = await createPatient(suite.app, suite.tenant.testKey, { firstName: 'Late', lastName: 'Arrival' });
        // The replica has not replayed it: a list that shows it was read on the primary.
        await eventually(async () => expect(await searchIds('Arrival')).toEqual([late.id]), 10_000, 100);
        expect(await readOnReplica(PATIENTS)).toBe(false);
        const onReplica = await pair.query<{ n: number }>(
          'replica',
          'SELECT count(*)::int AS n FROM patients WHERE id = $1',
          [late.id],
          DATABASE,
        );
        expect(onReplica).toEqual([{ n: 0 }]);
        expect(rotationLines().at(-1)).toMatchObject({ state: 'out of rotation', reason: 'lagging' });
      } finally {
        await pair.query('replica', 'SELECT pg_wal_replay_resume()');
      }
      await eventually(async () => expect(await readOnReplica(PATIENTS)).toBe(true), 20_000, 200);
    });
  });

  describe('without DATABASE_READ_URLS', () => {
    const suite = useApp(() => ({
      ...NO_RATE_LIMITS,
      WORKERS: 'off',
      DATABASE_URL: pair.primaryUrl(DATABASE),
      PGAPPNAME: 'no-replicas-e2e',
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}:no-replicas`,
    }));

    it('reads everything from the primary and opens no second pool', async () => {
      const from = pair.replicaLog().length;
      const patient = await createPatient(suite.app, suite.tenant.testKey, { firstName: 'Only', lastName: 'Primary' });
      for (const path of [`${PATIENTS}?search=Primary`, `${API}/events`, `${API}/settings/audit-log`]) {
        expect((await suite.api().get(path)).status).toBe(200);
      }
      expect((await suite.api().get<PatientListDto>(`${PATIENTS}?search=Only`)).body.patients.map((p) => p.id)).toEqual([patient.id]);
      expect(pair.replicaLog().slice(from)).not.toContain(suite.tenant.id);
      const pattern = [DATABASE, 'no-replicas-e2e%'];
      expect(await pair.query('replica', CONNECTIONS, pattern)).toEqual([]);
      // Its requests' pool (unnamed) and the audit writer's connection (no-replicas-e2e/audit-writer) only.
      const onPrimary = await pair.query<{ name: string }>('primary', CONNECTIONS, pattern);
      expect(onPrimary.filter((c) => c.name !== 'no-replicas-e2e/audit-writer')).toEqual([]);
    });
  });

  afterAll(async () => {
    await pair?.stop();
  });
});
