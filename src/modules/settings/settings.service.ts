import { Injectable } from '@nestjs/common';
import { AuthContext } from '../../common/auth/auth.types';
import { SettingsDto, SettingsUpdatedDto } from './dto/settings.dto';
import { SettingsSection } from './entities/settings.entity';
import { parseSettingsPatch } from './settings-payload';
import { SettingsRepository } from './settings.repository';

@Injectable()
export class SettingsService {
  constructor(private readonly settings: SettingsRepository) {}

  async get(auth: AuthContext, section: SettingsSection): Promise<SettingsDto> {
    const doc = await this.settings.get(auth, section);
    return { settings: doc.data, updatedAt: doc.updatedAt ? doc.updatedAt.toISOString() : null };
  }

  async update(auth: AuthContext, section: SettingsSection, body: unknown): Promise<SettingsUpdatedDto> {
    const patch = parseSettingsPatch(body);
    const doc = await this.settings.merge(auth, section, patch.set, patch.deleted);
    return { message: 'Settings updated', settings: doc.data };
  }
}
