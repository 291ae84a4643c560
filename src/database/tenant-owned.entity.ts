import { Check, Column, PrimaryColumn } from 'typeorm';
import type { Mode } from './modes';
import { References } from './references';
import { InstantColumn } from './instant-column';

export { MODES } from './modes';
export type { Mode } from './modes';

/** The scope every tenant-owned row carries and every query of it filters on. */
export interface TenantScope {
  tenantId: string;
  mode: Mode;
}

/**
 * Columns of a row owned by one tenant in one mode (test or live), with the constraints every migration
 * gives them: `tenant_id REFERENCES tenants ON DELETE CASCADE` and `CHECK (mode IN ('test', 'live'))`.
 */
@Check(`"mode" IN ('test', 'live')`)
export abstract class TenantOwned implements TenantScope {
  @Column('uuid')
  tenantId!: string;

  @References('TenantEntity', 'tenant_id', 'CASCADE')
  readonly tenantFk?: never;

  @Column({ type: 'varchar', length: 4 })
  mode!: Mode;
}

/** A tenant-owned row with a uuid id and millisecond timestamps (keyset cursors compare them exactly). */
export abstract class TenantOwnedEntity extends TenantOwned {
  @PrimaryColumn('uuid')
  id!: string;

  @InstantColumn()
  createdAt!: Date;

  @InstantColumn()
  updatedAt!: Date;
}
