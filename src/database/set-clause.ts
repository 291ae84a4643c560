/**
 * The assignments of an UPDATE for the members of `columns` that are not undefined (column name → value),
 * with their values as parameters numbered from `$first`: `{ sql: 'name = $4, steps = $5', params }`.
 * Column names come from code, never from a request.
 */
export function setClause(columns: Record<string, unknown>, first: number): { sql: string; params: unknown[] } {
  const entries = Object.entries(columns).filter(([, value]) => value !== undefined);
  return {
    sql: entries.map(([column], i) => `${column} = $${first + i}`).join(', '),
    params: entries.map(([, value]) => value),
  };
}
