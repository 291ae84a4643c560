import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { TenantScope } from '../../database/tenant-owned.entity';
import { TenantEntityRepository } from '../../database/tenant-scoped.repository';
import { WebhookEndpointEntity } from './entities/webhook-endpoint.entity';

/** The secrets that sign an attempt made at `at`: the current one, and the previous one during its grace period. */
export interface EndpointSecrets {
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
}

@Injectable()
export class WebhookEndpointsRepository extends TenantEntityRepository<WebhookEndpointEntity> {
  constructor(@InjectRepository(WebhookEndpointEntity) repository: Repository<WebhookEndpointEntity>) {
    super(repository);
  }

  /** The signing secrets (kept out of every other read by `select: false`). */
  async secrets(scope: TenantScope, id: string, tx?: EntityManager): Promise<EndpointSecrets | null> {
    const rows = await this.sql<EndpointSecrets[]>(
      scope,
      `SELECT secret, previous_secret AS "previousSecret", previous_secret_expires_at AS "previousSecretExpiresAt"
         FROM webhook_endpoints WHERE tenant_id = $1 AND mode = $2 AND id = $3`,
      [id],
      tx,
    );
    return rows[0] ?? null;
  }

  /** Turns an endpoint off after a delivery used its last attempt. */
  async disable(scope: TenantScope, id: string, tx?: EntityManager): Promise<void> {
    const now = new Date();
    await this.update(scope, { id, enabled: true }, { enabled: false, disabledAt: now, updatedAt: now }, tx);
  }
}
