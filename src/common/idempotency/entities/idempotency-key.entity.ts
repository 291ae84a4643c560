import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { TenantOwned } from '../../../database/tenant-owned.entity';
import { InstantColumn } from '../../../database/instant-column';

/** One caller's use of one Idempotency-Key (see migrations/1763900000000-IdempotencyKeys.ts). */
@Entity('idempotency_keys')
@Check(`"state" IN ('running', 'done')`)
@Index('UQ_IDEMPOTENCY_KEYS_TENANT_MODE_API_KEY_KEY', ['tenantId', 'mode', 'callerId', 'keyHash'], { unique: true })
export class IdempotencyKeyEntity extends TenantOwned {
  @PrimaryColumn('uuid')
  id!: string;

  /** The API key; for a public route, the record its keys are kept per (a booking page): the column keeps its first name. */
  @Column({ type: 'uuid', name: 'api_key_id' })
  callerId!: string;

  /** SHA-256 (hex) of the Idempotency-Key header's value. */
  @Column({ type: 'char', length: 64 })
  keyHash!: string;

  /** SHA-256 (hex) of the request's method, URL and canonical body. */
  @Column({ type: 'char', length: 64 })
  fingerprint!: string;

  @Column({ type: 'varchar', length: 7 })
  state!: 'running' | 'done';

  /** The claim of the request running it (null when none does). */
  @Column({ type: 'uuid', nullable: true })
  token!: string | null;

  @InstantColumn()
  lockedUntil!: Date;

  /** Each one encrypted (AppCrypto, bound to this record): a result may carry a secret. */
  @Column({ type: 'bytea', array: true, default: () => "'{}'" })
  recoveryPoints!: Buffer[];

  @Column({ type: 'smallint', nullable: true })
  responseStatus!: number | null;

  /** The serialised body, encrypted (AppCrypto, bound to this record): it may carry a new API key. */
  @Column({ type: 'text', nullable: true })
  responseBody!: string | null;

  @Column({ type: 'jsonb', nullable: true })
  responseHeaders!: Record<string, string> | null;

  @InstantColumn()
  createdAt!: Date;

  @Index('IDX_IDEMPOTENCY_KEYS_EXPIRES')
  @InstantColumn()
  expiresAt!: Date;
}
