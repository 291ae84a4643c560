import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { clock } from '../../common/time/clock';
import { TenantScope } from '../../database/tenant-owned.entity';
import { TenantScopedRepository } from '../../database/tenant-scoped.repository';
import { SettingsEntity, SettingsSection } from './entities/settings.entity';

export interface SettingsDocument {
  data: Record<string, unknown>;
  updatedAt: Date | null;
}

@Injectable()
export class SettingsRepository extends TenantScopedRepository<SettingsEntity> {
  constructor(@InjectRepository(SettingsEntity) repository: Repository<SettingsEntity>) {
    super(repository);
  }

  async get(scope: TenantScope, section: SettingsSection, tx?: EntityManager): Promise<SettingsDocument> {
    const row = await this.findOne(scope, { section }, tx);
    return { data: row?.data ?? {}, updatedAt: row?.updatedAt ?? null };
  }

  /**
   * Merges top-level keys and removes `deleted` in one statement, so concurrent updates of different
   * keys never lose each other.
   */
  async merge(
    scope: TenantScope,
    section: SettingsSection,
    patch: Record<string, unknown>,
    deleted: string[],
    tx?: EntityManager,
  ): Promise<SettingsDocument> {
    const rows = await this.sql<{ data: Record<string, unknown>; updated_at: Date }[]>(
      scope,
      `INSERT INTO settings AS s (tenant_id, mode, section, data, updated_at)
            VALUES ($1, $2, $3, $4::jsonb - $5::text[], $6)
       ON CONFLICT (tenant_id, mode, section)
         DO UPDATE SET data = (s.data || EXCLUDED.data) - $5::text[], updated_at = $6
       RETURNING data, updated_at`,
      [section, JSON.stringify(patch), deleted, clock.now()],
      tx,
    );
    return { data: rows[0].data, updatedAt: rows[0].updated_at };
  }
}
