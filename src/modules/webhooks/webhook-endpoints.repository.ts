import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { AppCrypto } from '../../common/crypto/app-crypto';
import { clock } from '../../common/time/clock';
import { TenantScope } from '../../database/tenant-owned.entity';
import { TenantEntityRepository, Unscoped } from '../../database/tenant-scoped.repository';
import { WebhookEndpointEntity } from './entities/webhook-endpoint.entity';

/** The secrets that sign an attempt made at `at`: the current one, and the previous one during its grace period. */
export interface EndpointSecrets {
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
}

/**
 * Signing secrets are stored encrypted (AppCrypto), bound to their endpoint row: a database dump or a
 * read replica does not let anyone sign deliveries. Only this repository sees them in plain text.
 */
export const WEBHOOK_SECRET_PURPOSE = 'webhook-secret';
export const webhookSecretContext = (scope: TenantScope, id: string): string => `webhook_endpoints:${scope.tenantId}:${scope.mode}:${id}`;

@Injectable()
export class WebhookEndpointsRepository extends TenantEntityRepository<WebhookEndpointEntity> {
  constructor(
    @InjectRepository(WebhookEndpointEntity) repository: Repository<WebhookEndpointEntity>,
    private readonly crypto: AppCrypto,
  ) {
    super(repository);
  }

  /** Inserts an endpoint whose `secret` (plain text here) is stored encrypted. */
  async insertWithSecret(scope: TenantScope, values: Unscoped<WebhookEndpointEntity>, tx?: EntityManager): Promise<WebhookEndpointEntity> {
    const row = this.build(scope, values);
    await this.repo(tx).insert({ ...row, secret: this.encrypt(scope, row.id, row.secret) });
    return row;
  }

  /** Replaces the signing secrets (plain text here; stored encrypted). */
  async setSecrets(scope: TenantScope, id: string, secrets: EndpointSecrets, updatedAt: Date, tx?: EntityManager): Promise<number> {
    const { secret, previousSecret, previousSecretExpiresAt } = secrets;
    return this.update(
      scope,
      { id },
      {
        secret: this.encrypt(scope, id, secret),
        previousSecret: previousSecret === null ? null : this.encrypt(scope, id, previousSecret),
        previousSecretExpiresAt,
        updatedAt,
      },
      tx,
    );
  }

  /** The signing secrets in plain text (kept out of every other read by `select: false`). */
  async secrets(scope: TenantScope, id: string, tx?: EntityManager): Promise<EndpointSecrets | null> {
    const rows = await this.sql<EndpointSecrets[]>(
      scope,
      `SELECT secret, previous_secret AS "previousSecret", previous_secret_expires_at AS "previousSecretExpiresAt"
         FROM webhook_endpoints WHERE tenant_id = $1 AND mode = $2 AND id = $3`,
      [id],
      tx,
    );
    const row = rows[0];
    if (!row) return null;
    const context = webhookSecretContext(scope, id);
    return {
      secret: this.crypto.decrypt(WEBHOOK_SECRET_PURPOSE, row.secret, context),
      previousSecret: row.previousSecret === null ? null : this.crypto.decrypt(WEBHOOK_SECRET_PURPOSE, row.previousSecret, context),
      previousSecretExpiresAt: row.previousSecretExpiresAt,
    };
  }

  private encrypt(scope: TenantScope, id: string, secret: string): string {
    return this.crypto.encrypt(WEBHOOK_SECRET_PURPOSE, secret, webhookSecretContext(scope, id));
  }

  /** Turns an endpoint off after a delivery used its last attempt. */
  async disable(scope: TenantScope, id: string, tx?: EntityManager): Promise<void> {
    const now = clock.now();
    await this.update(scope, { id, enabled: true }, { enabled: false, disabledAt: now, updatedAt: now }, tx);
  }
}
