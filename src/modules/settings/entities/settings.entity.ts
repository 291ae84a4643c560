import { Check, Column, Entity, PrimaryColumn } from 'typeorm';
import { References } from '../../../database/references';
import type { Mode, TenantScope } from '../../../database/tenant-owned.entity';
import { InstantColumn } from '../../../database/instant-column';

export const SETTINGS_SECTIONS = ['portal', 'practice', 'brand'] as const;
export type SettingsSection = (typeof SETTINGS_SECTIONS)[number];

/** One settings document per tenant, mode and section. */
@Entity('settings')
@Check(`"mode" IN ('test', 'live')`)
@Check(`"section" IN ('portal', 'practice', 'brand')`)
export class SettingsEntity implements TenantScope {
  @PrimaryColumn('uuid')
  tenantId!: string;

  @References('TenantEntity', 'tenant_id', 'CASCADE')
  readonly tenantFk?: never;

  @PrimaryColumn({ type: 'varchar', length: 4 })
  mode!: Mode;

  @PrimaryColumn({ type: 'varchar', length: 16 })
  section!: SettingsSection;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  data!: Record<string, unknown>;

  @InstantColumn()
  updatedAt!: Date;
}
