import { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { PageRequest } from '../../../common/http/lists/pagination';
import { keysetPage, type Page } from '../../../database/tenant-scoped.repository';

/**
 * One page in ascending time order (time off by start), keyed on (column, id) so that rows inserted
 * meanwhile neither repeat nor push others out of the next page. The cursor was checked when it was read
 * (decodeCursor): a timestamp and a uuid.
 */
export async function pageAscending<T extends ObjectLiteral & { id: string }>(
  query: SelectQueryBuilder<T>,
  column: string,
  valueOf: (row: T) => Date,
  page: PageRequest,
): Promise<Page<T>> {
  const alias = query.alias;
  if (page.after) {
    query.andWhere(`(${alias}.${column}, ${alias}.id) > (:cursorAt, :cursorId)`, { cursorAt: page.after.value, cursorId: page.after.id });
  }
  const rows = await query
    .orderBy(`${alias}.${column}`, 'ASC')
    .addOrderBy(`${alias}.id`, 'ASC')
    // limit, not take: the joins used here are one-to-one, so no DISTINCT pre-query is needed.
    .limit(page.limit + 1)
    .getMany();
  return keysetPage(rows, page, valueOf);
}
