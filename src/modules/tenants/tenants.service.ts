import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { uuidv7 } from '../../common/ids';
import { isUUID } from 'class-validator';
import { DataSource, EntityManager } from 'typeorm';
import { MODES, Mode, Role } from '../../common/auth/auth.types';
import { clock } from '../../common/time/clock';
import { Transactions } from '../../database/transactions';
import { ApiKeysService } from '../api-keys';
import { TenantEntity } from './entities/tenant.entity';

export interface CreatedTenant {
  tenant: { id: string; name: string };
  apiKeys: { id: string; mode: string; role: string; key: string }[];
}

@Injectable()
export class TenantsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly transactions: Transactions,
    private readonly apiKeys: ApiKeysService,
  ) {}

  /** A tenant with one OWNER key per mode, all in one transaction. */
  async create(name: string): Promise<CreatedTenant> {
    return this.transactions.run(async (tx) => {
      const tenant = tx.create(TenantEntity, { id: uuidv7(), name, createdAt: clock.now() });
      await tx.insert(TenantEntity, tenant);
      const apiKeys = [];
      for (const mode of MODES) {
        const key = await this.apiKeys.issue(
          { tenantId: tenant.id, mode },
          { name: `Default ${mode} key`, role: 'OWNER', scopes: null },
          tx,
        );
        apiKeys.push({ id: key.id, mode, role: key.role, key: key.key });
      }
      return { tenant: { id: tenant.id, name: tenant.name }, apiKeys };
    });
  }

  async exists(id: string): Promise<boolean> {
    return (await this.find(id)) !== null;
  }

  /** The tenant, or null (a malformed id names no tenant); read in `tx` when given. */
  async find(id: string, tx?: EntityManager): Promise<TenantEntity | null> {
    if (!isUUID(id)) return null;
    return (tx ?? this.dataSource.manager).getRepository(TenantEntity).findOneBy({ id });
  }

  /**
   * The operator's recovery path (`cli.js keys:create`): a new unscoped key of an existing tenant, for
   * when a mode has no usable key left. Answers the shape of `create`, or null when there is no such tenant.
   */
  async issueKey(tenantId: string, mode: Mode, role: Role): Promise<CreatedTenant | null> {
    const tenant = await this.find(tenantId);
    if (!tenant) return null;
    const key = await this.apiKeys.issue({ tenantId, mode }, { name: `Operator ${mode} key`, role, scopes: null });
    return { tenant: { id: tenant.id, name: tenant.name }, apiKeys: [{ id: key.id, mode, role: key.role, key: key.key }] };
  }
}
