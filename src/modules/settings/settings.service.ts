import { Injectable } from '@nestjs/common';
import { AuthContext } from '../../common/auth/auth.types';
import { TenantScope } from '../../database/tenant-owned.entity';
import { SettingsDto, SettingsUpdatedDto } from './dto/settings.dto';
import { SettingsSection } from './entities/settings.entity';
import { parseSettingsPatch } from './settings-payload';
import { SettingsRepository } from './settings.repository';

@Injectable()
export class SettingsService {
  constructor(private readonly settings: SettingsRepository) {}

  async get(scope: TenantScope, section: SettingsSection): Promise<SettingsDto> {
    const doc = await this.settings.get(scope, section);
    return { settings: doc.data, updatedAt: doc.updatedAt ? doc.updatedAt.toISOString() : null };
  }

  /** The practice's name as its settings give it (`name` of the practice section), or null when they give none. */
  async practiceName(scope: TenantScope): Promise<string | null> {
    const name = (await this.settings.get(scope, 'practice')).data.name;
    return typeof name === 'string' && name.trim() ? name.trim() : null;
  }

  async update(auth: AuthContext, section: SettingsSection, body: unknown): Promise<SettingsUpdatedDto> {
    const patch = parseSettingsPatch(body);
    const doc = await this.settings.merge(auth, section, patch.set, patch.deleted);
    return { message: 'Settings updated', settings: doc.data };
  }
}
