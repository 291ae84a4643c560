import { uuidv7 } from '../common/ids';
import { DeepPartial, EntityManager, FindOptionsOrder, FindOptionsWhere, ObjectLiteral, Repository, SelectQueryBuilder } from 'typeorm';
import { Cursor, encodeCursor, PageRequest } from '../common/http/lists/pagination';
import { clock } from '../common/time/clock';
import { unscopedSql } from './sql';
import { TenantOwnedEntity, TenantScope } from './tenant-owned.entity';

const scopedStatements = new Set<string>();

/** Refuses a raw statement that does not bind the scope's tenant ($1) and mode ($2); each text is checked once. */
function assertScoped(statement: string): void {
  if (scopedStatements.has(statement)) return;
  if (!/\$1(?!\d)/.test(statement) || !/\$2(?!\d)/.test(statement)) {
    throw new Error('A tenant-scoped statement must use $1 (tenant_id) and $2 (mode)');
  }
  if (scopedStatements.size < 10_000) scopedStatements.add(statement);
}

/** A statement on a tenant-scoped table ($1 tenant, $2 mode) and its own parameters (from $3), not yet run. */
export interface ScopedStatement {
  statement: string;
  params: unknown[];
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** How a read-modify-write locks its row until the transaction ends (PostgreSQL's row-level lock modes). */
export type RowLock = 'FOR UPDATE' | 'FOR NO KEY UPDATE' | 'FOR SHARE' | 'FOR KEY SHARE';
const LOCK_MODES = {
  'FOR UPDATE': 'pessimistic_write',
  'FOR NO KEY UPDATE': 'for_no_key_update',
  'FOR SHARE': 'pessimistic_read',
  'FOR KEY SHARE': 'for_key_share',
} as const;

export type Unscoped<T> = Omit<DeepPartial<T>, 'tenantId' | 'mode' | 'id' | 'createdAt' | 'updatedAt'>;
type Patch<T> = Omit<DeepPartial<T>, 'tenantId' | 'mode' | 'id'>;

/**
 * The one way to touch tenant-owned tables. Every method takes the caller's scope and adds `tenant_id`
 * and `mode` itself, so no query can forget them; another tenant's or mode's row is simply not found.
 * Subclasses add named queries built on `query()`, `scoped()` or `sql()`, the one raw-SQL dialect.
 *
 * Every method takes the transaction it runs in as its optional last parameter `tx` (the manager that
 * `Transactions.run` hands to its work); without one it runs on its own. Subclasses keep that convention.
 */
export abstract class TenantScopedRepository<T extends TenantScope & ObjectLiteral> {
  protected constructor(protected readonly repository: Repository<T>) {}

  /** The same repository bound to a transaction's manager. */
  protected repo(tx?: EntityManager): Repository<T> {
    return tx ? tx.getRepository<T>(this.repository.target) : this.repository;
  }

  /** A where clause narrowed to the scope; tenant and mode always win over the caller's values. */
  protected scoped(scope: TenantScope, where: FindOptionsWhere<T> = {}): FindOptionsWhere<T> {
    return { ...where, tenantId: scope.tenantId, mode: scope.mode };
  }

  /**
   * Raw SQL, for statements the query builder cannot express or that sit on a hot path. The scope's
   * tenant and mode are always bound as $1 and $2, the caller's parameters follow from $3, and a
   * statement that does not use both is refused: raw SQL cannot forget the scope either. It answers what
   * `unscopedSql` does: the rows, or `[rows, count]` for an UPDATE or DELETE.
   */
  protected sql<R = unknown>(scope: TenantScope, statement: string, params: unknown[] = [], tx?: EntityManager): Promise<R> {
    assertScoped(statement);
    return unscopedSql<R>(tx ?? this.repository.manager, statement, [scope.tenantId, scope.mode, ...params]);
  }

  /** `unscopedSql` on this repository's database, for the few statements of its table that find the tenant (a lookup by a secret or a phone number). */
  protected unscopedSql<R = unknown>(statement: string, params: unknown[] = [], tx?: EntityManager): Promise<R> {
    return unscopedSql<R>(tx ?? this.repository.manager, statement, params);
  }

  /**
   * A status change that happens only from the statuses it expects (`from`), in one statement, so that two
   * writers (workers, callbacks) can never both move one row on: `set` may use $5 onwards for `params`.
   * Answers the changed row, or null when the row was elsewhere.
   */
  protected async updateFromStatus(
    scope: TenantScope,
    id: string,
    from: readonly string[],
    set: string,
    params: unknown[],
    tx?: EntityManager,
  ): Promise<T | null> {
    const [rows] = await this.sql<[Record<string, unknown>[], number]>(
      scope,
      `UPDATE ${this.repository.metadata.tableName} SET ${set}, updated_at = $${params.length + 5}
        WHERE tenant_id = $1 AND mode = $2 AND id = $3 AND status = ANY($4::text[])
        RETURNING *`,
      [id, from, ...params, clock.now()],
      tx,
    );
    return rows[0] ? this.fromRow(rows[0]) : null;
  }

  /**
   * Adds one to a counter column of an active row (`is_active`), in one statement that takes the row's lock,
   * so concurrent counts add up exactly. False when the row is inactive or gone; in `tx`, the caller's work
   * then rolls back with it.
   */
  protected async incrementIfActive(scope: TenantScope, id: string, column: string, tx?: EntityManager): Promise<boolean> {
    const [rows] = await this.sql<[unknown[], number]>(
      scope,
      `UPDATE ${this.repository.metadata.tableName} SET ${column} = ${column} + 1
        WHERE tenant_id = $1 AND mode = $2 AND id = $3 AND is_active RETURNING 1`,
      [id],
      tx,
    );
    return rows.length === 1;
  }

  /**
   * The entity's columns as raw SQL selects them under their property names (`starts_at AS "startsAt"`), so
   * that `sql()` answers rows shaped as the entity without hydration.
   */
  protected get columns(): string {
    this.columnList ??= this.repository.metadata.columns.map((c) => `${c.databaseName} AS "${c.propertyName}"`).join(', ');
    return this.columnList;
  }
  private columnList?: string;

  /** The entity of a row as raw SQL answers it (column names, `RETURNING *`). */
  protected fromRow(raw: Record<string, unknown>): T {
    const values: Record<string, unknown> = {};
    for (const column of this.repository.metadata.columns) values[column.propertyName] = raw[column.databaseName];
    return this.repository.create(values as DeepPartial<T>);
  }

  /** A query builder that already filters on the scope. */
  query(scope: TenantScope, alias: string, tx?: EntityManager): SelectQueryBuilder<T> {
    return this.repo(tx).createQueryBuilder(alias).where(`${alias}.tenant_id = :scopeTenantId AND ${alias}.mode = :scopeMode`, {
      scopeTenantId: scope.tenantId,
      scopeMode: scope.mode,
    });
  }

  findOne(scope: TenantScope, where: FindOptionsWhere<T>, tx?: EntityManager): Promise<T | null> {
    return this.repo(tx).findOne({ where: this.scoped(scope, where) });
  }

  findById(scope: TenantScope, id: string, tx?: EntityManager): Promise<T | null> {
    return this.findOne(scope, { id } as unknown as FindOptionsWhere<T>, tx);
  }

  /**
   * The row, locked in `tx` until it ends (FOR UPDATE unless another mode is named), so that two
   * read-modify-writes of one row apply one after the other.
   */
  findByIdLocked(scope: TenantScope, id: string, tx: EntityManager, lock: RowLock = 'FOR UPDATE'): Promise<T | null> {
    return this.repo(tx).findOne({ where: this.scoped(scope, { id } as unknown as FindOptionsWhere<T>), lock: { mode: LOCK_MODES[lock] } });
  }

  find(scope: TenantScope, where: FindOptionsWhere<T> = {}, order?: FindOptionsOrder<T>, take?: number, tx?: EntityManager): Promise<T[]> {
    return this.repo(tx).find({ where: this.scoped(scope, where), order, take });
  }

  count(scope: TenantScope, where: FindOptionsWhere<T> = {}, tx?: EntityManager): Promise<number> {
    return this.repo(tx).count({ where: this.scoped(scope, where) });
  }

  /** Updates the scoped rows matching `where`; answers how many changed. */
  async update(scope: TenantScope, where: FindOptionsWhere<T>, patch: Patch<T>, tx?: EntityManager): Promise<number> {
    const result = await this.repo(tx).update(this.scoped(scope, where), patch as never);
    return result.affected ?? 0;
  }

  async delete(scope: TenantScope, where: FindOptionsWhere<T>, tx?: EntityManager): Promise<number> {
    const result = await this.repo(tx).delete(this.scoped(scope, where));
    return result.affected ?? 0;
  }
}

/** For tables of `TenantOwnedEntity`: ids, timestamps and newest-first keyset pages. */
export abstract class TenantEntityRepository<T extends TenantOwnedEntity> extends TenantScopedRepository<T> {
  /** Builds a row in the scope with a fresh time-ordered id; nothing is written. */
  build(scope: TenantScope, values: Unscoped<T>, now = clock.now()): T {
    return this.repository.create({
      ...values,
      id: uuidv7(),
      tenantId: scope.tenantId,
      mode: scope.mode,
      createdAt: now,
      updatedAt: now,
    } as DeepPartial<T>);
  }

  async insert(scope: TenantScope, values: Unscoped<T>, tx?: EntityManager): Promise<T> {
    const row = this.build(scope, values);
    await this.repo(tx).insert(row as never);
    return row;
  }

  /**
   * One page of a query, newest first by `createdAt` then id. The cursor is the last row's position,
   * so rows inserted meanwhile neither repeat nor push others out of the next page.
   */
  paginate(query: SelectQueryBuilder<T>, page: PageRequest): Promise<Page<T>> {
    return newestFirstPage(query, page, 'created_at', (row) => row.createdAt);
  }
}

/**
 * One keyset page of a query, newest first by a timestamp column then id (for tables whose time column
 * is not `created_at`, or that are not `TenantOwnedEntity`s).
 */
export async function newestFirstPage<T extends ObjectLiteral & { id: string }>(
  query: SelectQueryBuilder<T>,
  page: PageRequest,
  column: string,
  valueOf: (row: T) => Date,
): Promise<Page<T>> {
  const alias = query.alias;
  if (page.after) {
    query.andWhere(`(${alias}.${column}, ${alias}.id) < (:cursorAt, :cursorId)`, {
      cursorAt: page.after.value,
      cursorId: page.after.id,
    });
  }
  const rows = await query
    .orderBy(`${alias}.${column}`, 'DESC')
    .addOrderBy(`${alias}.id`, 'DESC')
    .take(page.limit + 1)
    .getMany();
  return keysetPage(rows, page, valueOf);
}

/** The page of `rows` (fetched in page order, newest first or ascending, `page.limit + 1` of them) and the cursor after its last row. */
export function keysetPage<T extends { id: string }>(rows: T[], page: PageRequest, valueOf: (row: T) => Date): Page<T> {
  const items = rows.length > page.limit ? rows.slice(0, page.limit) : rows;
  const last = items[items.length - 1];
  const next: Cursor | undefined = rows.length > page.limit && last ? { value: valueOf(last).toISOString(), id: last.id } : undefined;
  return { items, nextCursor: next ? encodeCursor(next) : null };
}
