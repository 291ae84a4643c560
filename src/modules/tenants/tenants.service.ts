import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { v7 as uuidv7 } from 'uuid';
import { DataSource } from 'typeorm';
import { MODES } from '../../common/auth/auth.types';
import { ApiKeysService } from '../api-keys/api-keys.service';
import { TenantEntity } from './entities/tenant.entity';

export interface CreatedTenant {
  tenant: { id: string; name: string };
  apiKeys: { id: string; mode: string; role: string; key: string }[];
}

@Injectable()
export class TenantsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly apiKeys: ApiKeysService,
  ) {}

  /** A tenant with one OWNER key per mode, all in one transaction. */
  async create(name: string): Promise<CreatedTenant> {
    return this.dataSource.transaction(async (manager) => {
      const tenant = manager.create(TenantEntity, { id: uuidv7(), name, createdAt: new Date() });
      await manager.insert(TenantEntity, tenant);
      const apiKeys = [];
      for (const mode of MODES) {
        const key = await this.apiKeys.issue(
          { tenantId: tenant.id, mode },
          { name: `Default ${mode} key`, role: 'OWNER', scopes: null },
          manager,
        );
        apiKeys.push({ id: key.id, mode, role: key.role, key: key.key });
      }
      return { tenant: { id: tenant.id, name: tenant.name }, apiKeys };
    });
  }

  async exists(id: string): Promise<boolean> {
    return (await this.dataSource.getRepository(TenantEntity).countBy({ id })) > 0;
  }
}
