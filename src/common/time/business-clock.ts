import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { unscopedSql } from '../../database/sql';
import type { TenantScope } from '../../database/tenant-owned.entity';
import { clock } from './clock';

/**
 * The time a tenant's business rules read: what is due, allowed or past (availability, booking and change
 * checks, change windows, reminder planning and sending, sequence delays, expiries). In live mode it is the
 * process's clock; in test mode the tenant's test clock, which runs `offsetMs` ahead of it and which every
 * instance reads afresh from PostgreSQL (`test_clocks`), so a move is seen from the next request on.
 * Timestamps that record when something happened (createdAt, sentAt, events, audit) read `clock.now()`.
 * Pass the transaction when inside one, so the read does not wait for a second pooled connection.
 */
@Injectable()
export class BusinessClock {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async now(scope: TenantScope, tx?: EntityManager): Promise<Date> {
    return new Date(await this.nowMs(scope, tx));
  }

  async nowMs(scope: TenantScope, tx?: EntityManager): Promise<number> {
    const offset = await this.offsetMs(scope, tx);
    return clock.nowMs() + offset;
  }

  /** How far the scope's clock runs ahead of the process's: 0 in live mode and for an unmoved test clock. */
  async offsetMs(scope: TenantScope, tx?: EntityManager): Promise<number> {
    if (scope.mode !== 'test') return 0;
    return (await this.offsetsOf([scope.tenantId], tx)).get(scope.tenantId) ?? 0;
  }

  /** The test clocks' offsets of these tenants (absent: real time). */
  async offsetsOf(tenantIds: readonly string[], tx?: EntityManager): Promise<Map<string, number>> {
    if (!tenantIds.length) return new Map();
    const rows = await unscopedSql<{ tenantId: string; offsetMs: string }[]>(
      tx ?? this.dataSource,
      `SELECT tenant_id AS "tenantId", offset_ms AS "offsetMs" FROM test_clocks WHERE tenant_id = ANY($1::uuid[])`,
      [[...new Set(tenantIds)]],
    );
    return new Map(rows.map((r) => [r.tenantId, Number(r.offsetMs)]));
  }

  /**
   * Moves a tenant's test clock so that its now is `to` (never back, unless `reset`), committed at once so
   * that workers read it for the jobs it makes due. `reset` puts it back on real time. Answers the offset.
   */
  async moveTestClock(tenantId: string, to: number | 'reset'): Promise<number> {
    if (to === 'reset') {
      await unscopedSql(this.dataSource, `DELETE FROM test_clocks WHERE tenant_id = $1`, [tenantId]);
      return 0;
    }
    const [row] = await unscopedSql<{ offsetMs: string }[]>(
      this.dataSource,
      `INSERT INTO test_clocks AS c (tenant_id, offset_ms, updated_at) VALUES ($1, $2, $3)
       ON CONFLICT (tenant_id) DO UPDATE SET offset_ms = GREATEST(c.offset_ms, EXCLUDED.offset_ms), updated_at = EXCLUDED.updated_at
       RETURNING offset_ms AS "offsetMs"`,
      [tenantId, Math.max(0, to - clock.nowMs()), clock.now()],
    );
    return Number(row.offsetMs);
  }
}
