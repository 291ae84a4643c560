import { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { Cursor, encodeCursor, PageRequest } from '../../common/http/pagination';
import { ValidationFailedException } from '../../common/http/problem';
import type { Page } from '../../database/tenant-scoped.repository';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The (time, id) after which an ascending page starts, or none on the first page; refuses a cursor this API did not issue. */
export function ascendingCursor(page: PageRequest): { at: Date; id: string } | undefined {
  if (!page.after) return undefined;
  const at = new Date(page.after.value);
  if (Number.isNaN(at.getTime()) || !UUID.test(page.after.id)) {
    throw new ValidationFailedException([{ field: 'cursor', message: 'is not a cursor this API issued' }]);
  }
  return { at, id: page.after.id };
}

/** The page of `rows` (fetched in ascending order, `page.limit + 1` of them) and the cursor after its last row. */
export function ascendingPage<T extends { id: string }>(rows: T[], page: PageRequest, valueOf: (row: T) => Date): Page<T> {
  const items = rows.slice(0, page.limit);
  const last = items[items.length - 1];
  const next: Cursor | undefined = rows.length > page.limit && last ? { value: valueOf(last).toISOString(), id: last.id } : undefined;
  return { items, nextCursor: next ? encodeCursor(next) : null };
}

/**
 * One page in ascending time order (appointments by datetime, time off by start), keyed on
 * (column, id) so that rows inserted meanwhile neither repeat nor push others out of the next page.
 */
export async function pageAscending<T extends ObjectLiteral & { id: string }>(
  query: SelectQueryBuilder<T>,
  column: string,
  valueOf: (row: T) => Date,
  page: PageRequest,
): Promise<Page<T>> {
  const alias = query.alias;
  const after = ascendingCursor(page);
  if (after) query.andWhere(`(${alias}.${column}, ${alias}.id) > (:cursorAt, :cursorId)`, { cursorAt: after.at, cursorId: after.id });
  const rows = await query
    .orderBy(`${alias}.${column}`, 'ASC')
    .addOrderBy(`${alias}.id`, 'ASC')
    // limit, not take: the joins used here are one-to-one, so no DISTINCT pre-query is needed.
    .limit(page.limit + 1)
    .getMany();
  return ascendingPage(rows, page, valueOf);
}
