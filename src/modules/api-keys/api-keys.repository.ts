import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, IsNull, Repository } from 'typeorm';
import { PageRequest } from '../../common/http/lists/pagination';
import { clock } from '../../common/time/clock';
import { prepared } from '../../database/sql';
import { TenantScope } from '../../database/tenant-owned.entity';
import { Page, TenantEntityRepository } from '../../database/tenant-scoped.repository';
import { ApiKeyEntity } from './entities/api-key.entity';

/** What authentication needs of a key. */
export type AuthenticatedKey = Pick<ApiKeyEntity, 'id' | 'tenantId' | 'mode' | 'name' | 'role' | 'scopes' | 'expiresAt' | 'revokedAt'>;

export interface KeyWithTenant {
  key: AuthenticatedKey;
  tenantName: string;
}

const FIND_FOR_AUTHENTICATION =
  prepared(`SELECT k.id, k.tenant_id AS "tenantId", k.mode, k.name, k.role, k.scopes, k.expires_at AS "expiresAt",
    k.revoked_at AS "revokedAt", t.name AS "tenantName"
  FROM api_keys k JOIN tenants t ON t.id = k.tenant_id WHERE k.key_hash = $1`);

@Injectable()
export class ApiKeysRepository extends TenantEntityRepository<ApiKeyEntity> {
  constructor(@InjectRepository(ApiKeyEntity) repository: Repository<ApiKeyEntity>) {
    super(repository);
  }

  /**
   * The one lookup that is not tenant-scoped: authentication, which is how the tenant becomes known.
   * One indexed query by the key's hash, joined to its tenant.
   */
  async findForAuthentication(keyHash: string): Promise<KeyWithTenant | null> {
    const [row] = await this.unscopedSql<(AuthenticatedKey & { tenantName: string })[]>(FIND_FOR_AUTHENTICATION, [keyHash]);
    if (!row) return null;
    const { tenantName, ...key } = row;
    return { key, tenantName };
  }

  list(scope: TenantScope, page: PageRequest, tx?: EntityManager): Promise<Page<ApiKeyEntity>> {
    return this.paginate(this.query(scope, 'k', tx), page);
  }

  /**
   * Locks the scope's active OWNER keys (not revoked, not expired) and answers their ids. Concurrent
   * revocations of OWNER keys of one tenant and mode take turns on these row locks, and the one that
   * waited sees the other's revocation (READ COMMITTED re-checks a locked row), so two of them can never
   * both take the last two OWNER keys.
   */
  async lockActiveOwnerKeys(scope: TenantScope, tx: EntityManager): Promise<string[]> {
    const rows = await this.sql<{ id: string }[]>(
      scope,
      `SELECT id FROM api_keys
        WHERE tenant_id = $1 AND mode = $2 AND role = 'OWNER' AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $3)
        ORDER BY id FOR UPDATE`,
      [clock.now()],
      tx,
    );
    return rows.map((r) => r.id);
  }

  async revoke(scope: TenantScope, id: string, at: Date, tx?: EntityManager): Promise<boolean> {
    return (await this.update(scope, { id, revokedAt: IsNull() }, { revokedAt: at, updatedAt: at }, tx)) > 0;
  }

  /**
   * Writes buffered last-use times in one statement; never moves a time backwards. Not tenant-scoped: the
   * authenticator flushes the keys of every tenant it served, by the ids it verified.
   */
  async recordLastUse(uses: Map<string, Date>): Promise<void> {
    if (uses.size === 0) return;
    const ids = [...uses.keys()];
    const times = ids.map((id) => uses.get(id)!.toISOString());
    await this.unscopedSql(
      `UPDATE api_keys k SET last_used_at = u.at
         FROM unnest($1::uuid[], $2::timestamptz[]) AS u(id, at)
        WHERE k.id = u.id AND (k.last_used_at IS NULL OR k.last_used_at < u.at)`,
      [ids, times],
    );
  }
}
