import { EntityManager, QueryFailedError } from 'typeorm';
import { runStatement } from './prepared';

describe('runStatement', () => {
  const managerOn = (query: jest.Mock, inTransaction = false): EntityManager =>
    (inTransaction
      ? { queryRunner: { databaseConnection: { query } } }
      : { queryRunner: undefined, connection: { driver: { master: { query } } } }) as unknown as EntityManager;

  it('names a prepared statement after its text: the same text, the same name; another text, another', async () => {
    const query = jest.fn(async () => ({ rows: [{ id: 1 }] }));
    const manager = managerOn(query);
    await expect(runStatement(manager, 'SELECT $1', [1], true)).resolves.toEqual([{ id: 1 }]);
    await runStatement(manager, 'SELECT $1', [2], true);
    await runStatement(manager, 'SELECT $1 + 1', [2], true);
    const names = query.mock.calls.map((c: unknown[]) => (c[0] as { name?: string }).name);
    expect(names[0]).toMatch(/^s_[0-9a-f]{20}$/);
    expect(names[1]).toBe(names[0]);
    expect(names[2]).not.toBe(names[0]);
  });

  it('runs unnamed when not prepared, and on the transaction connection when there is one', async () => {
    const query = jest.fn(async () => ({ rows: [] }));
    await runStatement(managerOn(query, true), 'SELECT $1', [1], false);
    expect(query).toHaveBeenCalledWith({ text: 'SELECT $1', values: [1] });
  });

  it('fails as TypeORM does, with the driver error (constraint names map as usual)', async () => {
    const driverError = Object.assign(new Error('duplicate key'), { code: '23505', constraint: 'UQ_X' });
    const query = jest.fn(async () => Promise.reject(driverError));
    const failure = await runStatement(managerOn(query), 'INSERT', [], true).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(QueryFailedError);
    expect((failure as QueryFailedError).driverError).toBe(driverError);
  });
});
