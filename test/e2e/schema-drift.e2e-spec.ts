import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/database/database-options';

const HOW_TO_FIX = `The entities and the migrations disagree: \`npm run migration:generate\` would propose the statements below.
Declare on the entity what your migration creates (a named @Index, @Check, @References(...) for a foreign key, the
column's default and nullability; an index TypeORM cannot express, such as GIN or an expression, as
@Index('<NAME>', { synchronize: false })), or add a migration for what the entity declares. See docs/architecture.md,
"Schema and migrations".`;

/** The run's database is migrated from migrations/ (test/helpers/global-setup.ts); the entities must describe exactly it. */
describe('Entities match migrations', () => {
  // A bare DataSource, not useApp: the schema builder needs the entities and the database, no app.
  it('migration:generate on the migrated schema proposes nothing', async () => {
    const dataSource = new DataSource(dataSourceOptions(process.env.DATABASE_URL!));
    await dataSource.initialize();
    try {
      const { upQueries } = await dataSource.driver.createSchemaBuilder().log();
      const proposed = upQueries.map((q) => q.query);
      if (proposed.length) throw new Error(`${HOW_TO_FIX}\n\n${proposed.join(';\n')};`);
    } finally {
      await dataSource.destroy();
    }
  });
});
