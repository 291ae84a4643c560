import { DefaultNamingStrategy, NamingStrategyInterface, Table } from 'typeorm';

const snake = (s: string): string => s.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
const tableName = (table: Table | string): string => (typeof table === 'string' ? table : table.name).split('.').pop()!;

/**
 * camelCase properties, snake_case columns. Foreign keys and checks get the names PostgreSQL gives
 * them when a migration's SQL leaves them unnamed (`patients_tenant_id_fkey`, `patients_mode_check`), so
 * the entities name the constraints the migrations create and `migration:generate` sees no difference.
 */
export class SnakeNamingStrategy extends DefaultNamingStrategy implements NamingStrategyInterface {
  override columnName(propertyName: string, customName: string | undefined, prefixes: string[]): string {
    return snake([...prefixes, customName ?? propertyName].join('_'));
  }

  override relationName(propertyName: string): string {
    return snake(propertyName);
  }

  override joinColumnName(relationName: string, referencedColumnName: string): string {
    return snake(`${relationName}_${referencedColumnName}`);
  }

  override foreignKeyName(table: Table | string, columnNames: string[]): string {
    return `${tableName(table)}_${columnNames.join('_')}_fkey`;
  }

  /** `<table>_<column>_check` when the expression names one column, else `<table>_check`, as PostgreSQL does. */
  override checkConstraintName(table: Table | string, expression: string): string {
    const columns = new Set([...expression.matchAll(/"(\w+)"/g)].map((m) => m[1]));
    return columns.size === 1 ? `${tableName(table)}_${[...columns][0]}_check` : `${tableName(table)}_check`;
  }
}
