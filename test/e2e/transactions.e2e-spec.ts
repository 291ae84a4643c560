import { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { deserialize } from 'node:v8';
import { OverlappingTransactionError, RecoveryLog } from '../../src/common/idempotency/recovery-log';
import { constraintViolation } from '../../src/database/database-errors';
import { TenantScope } from '../../src/database/tenant-owned.entity';
import { runTransactionsWith, Transactions } from '../../src/database/transactions';
import { ConditionsRepository } from '../../src/modules/patients/clinical.repository';
import { CustomFieldsRepository } from '../../src/modules/patients/custom-fields.repository';
import { PatientValues, PatientsRepository } from '../../src/modules/patients/patients.repository';
import { createTenant } from '../helpers/app';
import { useApp } from '../helpers/use-app';

const values = (externalId: string | null = null): PatientValues => ({
  externalId,
  email: null,
  phone: null,
  firstName: 'Tx',
  lastName: 'Patient',
  dateOfBirth: null,
  gender: null,
  address: null,
  patientType: 'prospect',
  patientStatus: 'active',
  tags: [],
  customFields: {},
  emailOptOut: false,
  smsOptOut: false,
});

describe('Transactions reach the repositories', () => {
  const suite = useApp({ WORKERS: 'off' });
  let scope: TenantScope;
  let transactions: Transactions;
  let patients: PatientsRepository;
  let fields: CustomFieldsRepository;

  beforeAll(async () => {
    scope = { tenantId: (await createTenant(suite.app)).id, mode: 'test' };
    transactions = suite.app.get(Transactions);
    patients = suite.app.get(PatientsRepository);
    fields = suite.app.get(CustomFieldsRepository);
  });

  it('commits the writes of several repositories together, raw SQL included', async () => {
    const { patient, seenInside, seenOutside } = await transactions.run(async (tx) => {
      const row = await patients.create(scope, values(), `TX${Date.now() % 1e6}`, tx);
      await fields.insert(scope, { key: `tx_commit_${row.id.slice(-6)}`, label: 'x', type: 'text', options: null }, tx);
      // The hot raw query sees the uncommitted row through the transaction, and only through it.
      return { patient: row, seenInside: await patients.get(scope, row.id, tx), seenOutside: await patients.get(scope, row.id) };
    });
    expect(seenInside?.id).toBe(patient.id);
    expect(seenOutside).toBeNull();
    expect((await patients.get(scope, patient.id))?.id).toBe(patient.id);
    expect((await fields.all(scope)).map((f) => f.key)).toContain(`tx_commit_${patient.id.slice(-6)}`);
  });

  it('rolls every write back when the work throws, and rethrows the error as it was', async () => {
    const key = `tx_rollback_${Date.now()}`;
    let id = '';
    const failure = new Error('the third write failed');
    await expect(
      transactions.run(async (tx) => {
        id = (await patients.create(scope, values(), `RB${Date.now() % 1e6}`, tx)).id;
        await fields.insert(scope, { key, label: 'x', type: 'text', options: null }, tx);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await patients.get(scope, id)).toBeNull();
    expect((await fields.all(scope)).map((f) => f.key)).not.toContain(key);
  });

  it('findByIdLocked holds the row until its transaction ends, and sees only its own scope', async () => {
    const field = await fields.insert(scope, { key: `tx_lock_${Date.now()}`, label: 'x', type: 'text', options: null });
    const order: string[] = [];
    let releaseFirst!: () => void;
    const firstHolds = new Promise<void>((resolve) => (releaseFirst = resolve));
    let firstLocked!: () => void;
    const locked = new Promise<void>((resolve) => (firstLocked = resolve));
    const first = transactions.run(async (tx) => {
      expect((await fields.findByIdLocked(scope, field.id, tx))?.id).toBe(field.id);
      firstLocked();
      await firstHolds;
      order.push('first commits');
    });
    await locked;
    const second = transactions.run(async (tx) => {
      await fields.findByIdLocked(scope, field.id, tx, 'FOR NO KEY UPDATE');
      order.push('second locked');
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(order).toEqual([]); // the second waits on the first's lock
    releaseFirst();
    await Promise.all([first, second]);
    expect(order).toEqual(['first commits', 'second locked']);

    const otherTenant: TenantScope = { tenantId: (await createTenant(suite.app)).id, mode: 'test' };
    const otherMode: TenantScope = { tenantId: scope.tenantId, mode: 'live' };
    for (const other of [otherTenant, otherMode]) {
      expect(await transactions.run((tx) => fields.findByIdLocked(other, field.id, tx))).toBeNull();
    }
  });

  it('names the constraint of a unique or foreign-key violation', async () => {
    const externalId = `ext-${Date.now()}`;
    await patients.create(scope, values(externalId), `U1${Date.now() % 1e6}`);
    const duplicate = await patients.create(scope, values(externalId), `U2${Date.now() % 1e6}`).catch((e: unknown) => e);
    expect(constraintViolation(duplicate)).toEqual({ kind: 'unique', constraint: 'UQ_PATIENTS_TENANT_MODE_EXTERNAL_ID' });
    const orphan = await suite.app
      .get(ConditionsRepository)
      .insert(scope, {
        patientId: uuidv7(),
        code: null,
        codeSystem: null,
        display: 'x',
        clinicalStatus: 'active',
        onsetDate: null,
        recordedAt: new Date(),
      })
      .catch((e: unknown) => e);
    expect(constraintViolation(orphan)).toEqual({ kind: 'foreign_key', constraint: expect.stringMatching(/patient_id/) });
    expect(constraintViolation(new Error('not a database error'))).toBeUndefined();
  });

  it('a step rolls back alone when it fails, and the rest of the transaction commits', async () => {
    const kept = `tx_step_kept_${Date.now()}`;
    const dropped = `tx_step_dropped_${Date.now()}`;
    const failure = new Error('the step failed');
    await transactions.run(async (tx) => {
      await fields.insert(scope, { key: kept, label: 'x', type: 'text', options: null }, tx);
      await expect(
        transactions.step(tx, async (step) => {
          await fields.insert(scope, { key: dropped, label: 'x', type: 'text', options: null }, step);
          throw failure;
        }),
      ).rejects.toBe(failure);
      // The transaction is still usable after the failed step (no "current transaction is aborted").
      expect(await transactions.step(tx, (step) => patients.exists(scope, uuidv7(), step))).toBe(false);
    });
    const keys = (await fields.all(scope)).map((f) => f.key);
    expect(keys).toContain(kept);
    expect(keys).not.toContain(dropped);
    // A step belongs to a transaction: without one there is nothing to roll back to.
    expect(() => transactions.step(suite.app.get(DataSource).manager, () => Promise.resolve(1))).toThrow(/open transaction/);
  });

  it('refuses a nested or a parallel run inside a request holding an Idempotency-Key, writing nothing of it', async () => {
    // What the Idempotency-Key interceptor runs a keyed request's transactions with; recovery points are matched by order.
    const recorded: unknown[] = [];
    const log = new RecoveryLog([], (point) => {
      recorded.push(deserialize(point));
      return Promise.resolve();
    });
    let nestedId = '';
    let stepId = '';
    await runTransactionsWith(log, async () => {
      await expect(
        transactions.run(async (tx) => {
          nestedId = (await patients.create(scope, values(), `NS${Date.now() % 1e6}`, tx)).id;
          return transactions.run(() => Promise.resolve('inner'));
        }),
      ).rejects.toBeInstanceOf(OverlappingTransactionError);
      const first = transactions.run(() => new Promise((resolve) => setTimeout(() => resolve('first'), 50)));
      await expect(transactions.run(() => Promise.resolve('parallel'))).rejects.toBeInstanceOf(OverlappingTransactionError);
      await expect(transactions.runOne(() => Promise.resolve('parallel, one statement'))).rejects.toBeInstanceOf(
        OverlappingTransactionError,
      );
      expect(await first).toBe('first');
      // One after another is the rule, and passes.
      expect(await transactions.run(() => Promise.resolve('second'))).toBe('second');
      expect(await transactions.runOne(() => Promise.resolve('third'))).toBe('third');
      // A step of the open transaction is part of it: it works, and records nothing of its own.
      expect(
        await transactions.run(async (tx) => {
          stepId = await transactions.step(tx, async (step) => (await patients.create(scope, values(), `ST${Date.now() % 1e6}`, step)).id);
          return 'fourth';
        }),
      ).toBe('fourth');
    });
    expect(await patients.get(scope, nestedId)).toBeNull();
    expect((await patients.get(scope, stepId))?.id).toBe(stepId);
    expect(recorded).toEqual(['first', 'second', 'third', 'fourth']);
    // Outside a keyed request nothing is recorded, and nesting is the caller's business.
    expect(await transactions.run(() => transactions.run(() => Promise.resolve('nested, unkeyed')))).toBe('nested, unkeyed');
  });

  it('a retry of a keyed request gets the recorded results back in order, without running the work again', async () => {
    const first = new RecoveryLog([], () => Promise.resolve());
    const points: Buffer[] = [];
    const recording = new RecoveryLog([], (point) => {
      points.push(point);
      return Promise.resolve();
    });
    const ran: string[] = [];
    const work = (name: string) => () => {
      ran.push(name);
      return Promise.resolve({ name, at: new Date(0) });
    };
    await runTransactionsWith(recording, async () => {
      await transactions.run(work('a'));
      await transactions.runOne(work('b'));
    });
    const retry = new RecoveryLog(points, () => Promise.resolve());
    const answers = await runTransactionsWith(retry, async () => [
      await transactions.run(work('a again')),
      await transactions.runOne(work('b again')),
      await transactions.run(work('c')),
    ]);
    expect(answers).toEqual([
      { name: 'a', at: new Date(0) },
      { name: 'b', at: new Date(0) },
      { name: 'c', at: new Date(0) },
    ]);
    expect(ran).toEqual(['a', 'b', 'c']);
    expect(retry.replayedAny).toBe(true);
    // Once the request has answered, what it left running is no longer recorded or checked for overlap.
    first.close();
    expect(
      await runTransactionsWith(first, () => transactions.run(() => transactions.run(() => Promise.resolve('after the answer')))),
    ).toBe('after the answer');
  });
});
