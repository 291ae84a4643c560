import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/database/database-options';
import { prepared } from '../../src/database/sql';

const HOT = prepared('SELECT $1::int + 1 AS n');

/** The statements the connection holds under a name (pg_prepared_statements is per session). */
async function namesAfterRunning(namedStatements: boolean): Promise<{ names: string[]; answers: unknown[] }> {
  const dataSource = await new DataSource(dataSourceOptions(process.env.DATABASE_URL!, namedStatements)).initialize();
  const runner = dataSource.createQueryRunner();
  try {
    const answers = [await runner.query(HOT, [1]), await runner.query(HOT, [2]), await runner.query('SELECT $1::int + 2 AS n', [3])];
    const rows = (await runner.query('SELECT name FROM pg_prepared_statements ORDER BY name')) as { name: string }[];
    return { names: rows.map((r) => r.name), answers };
  } finally {
    await runner.release();
    await dataSource.destroy();
  }
}

describe('Named statements', () => {
  it('runs a statement marked prepared() under one name per connection, and every other statement unnamed', async () => {
    const { names, answers } = await namesAfterRunning(true);
    expect(answers).toEqual([[{ n: 2 }], [{ n: 3 }], [{ n: 5 }]]);
    expect(names).toHaveLength(1);
    expect(names[0]).toMatch(/^s_[0-9a-f]{20}$/);
  });

  it('names nothing behind a transaction pooler (DATABASE_POOLER=transaction)', async () => {
    const { names, answers } = await namesAfterRunning(false);
    expect(answers).toEqual([[{ n: 2 }], [{ n: 3 }], [{ n: 5 }]]);
    expect(names).toEqual([]);
  });
});
