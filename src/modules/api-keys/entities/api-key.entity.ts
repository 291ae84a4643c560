import { Check, Column, Entity, Index } from 'typeorm';
import type { Role, Scope } from '../../../common/auth/auth.types';
import { TenantOwnedEntity } from '../../../database/tenant-owned.entity';
import { InstantColumn } from '../../../database/instant-column';

/** An API key. Only the SHA-256 of the whole key is stored; the key is shown once, at creation. */
@Entity('api_keys')
@Check(`"role" IN ('OWNER', 'ADMIN', 'STAFF')`)
@Index('IDX_API_KEYS_TENANT_MODE_CREATED', ['tenantId', 'mode', 'createdAt', 'id'])
export class ApiKeyEntity extends TenantOwnedEntity {
  @Index('UQ_API_KEYS_KEY_HASH', { unique: true })
  @Column({ type: 'char', length: 64 })
  keyHash!: string;

  @Column({ type: 'varchar', length: 100 })
  name!: string;

  @Column({ type: 'varchar', length: 500, nullable: true })
  description!: string | null;

  @Column({ type: 'varchar', length: 5 })
  role!: Role;

  @Column({ type: 'text', array: true, nullable: true })
  scopes!: Scope[] | null;

  /** The first characters of the key (`sk_live_Ab3x`), to recognise it in lists. */
  @Column({ type: 'varchar', length: 16 })
  prefix!: string;

  @Column({ type: 'char', length: 4 })
  last4!: string;

  @Column({ type: 'uuid', nullable: true })
  createdByKeyId!: string | null;

  @InstantColumn({ nullable: true })
  lastUsedAt!: Date | null;

  @InstantColumn({ nullable: true })
  expiresAt!: Date | null;

  @InstantColumn({ nullable: true })
  revokedAt!: Date | null;
}
