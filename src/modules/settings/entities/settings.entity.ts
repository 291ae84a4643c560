import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Mode, TenantScope } from '../../../database/tenant-owned.entity';

export const SETTINGS_SECTIONS = ['portal', 'practice', 'brand'] as const;
export type SettingsSection = (typeof SETTINGS_SECTIONS)[number];

/** One settings document per tenant, mode and section. */
@Entity('settings')
export class SettingsEntity implements TenantScope {
  @PrimaryColumn('uuid')
  tenantId!: string;

  @PrimaryColumn({ type: 'varchar', length: 4 })
  mode!: Mode;

  @PrimaryColumn({ type: 'varchar', length: 16 })
  section!: SettingsSection;

  @Column({ type: 'jsonb' })
  data!: Record<string, unknown>;

  @Column({ type: 'timestamptz', precision: 3 })
  updatedAt!: Date;
}
