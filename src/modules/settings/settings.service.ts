import { Injectable } from '@nestjs/common';
import { AuthContext } from '../../common/auth/auth.types';
import { ValidationFailedException } from '../../common/http/problem';
import { TenantScope } from '../../database/tenant-owned.entity';
import { SettingsDto, SettingsUpdatedDto } from './dto/settings.dto';
import { SettingsSection } from './entities/settings.entity';
import { parseSettingsPatch } from './settings-payload';
import { SettingsRepository } from './settings.repository';
import { SmsNumbersService } from '../sms-numbers';

/** Practice settings members the API shows but does not take: operators assign them. */
const ASSIGNED_BY_OPERATORS: Record<string, string> = {
  smsFromNumber: 'is assigned by an operator (node dist/cli.js sms-numbers:assign), not through the API',
};

@Injectable()
export class SettingsService {
  constructor(
    private readonly settings: SettingsRepository,
    private readonly smsNumbers: SmsNumbersService,
  ) {}

  async get(scope: TenantScope, section: SettingsSection): Promise<SettingsDto> {
    const doc = await this.settings.get(scope, section);
    return { settings: await this.shown(scope, section, doc.data), updatedAt: doc.updatedAt ? doc.updatedAt.toISOString() : null };
  }

  /** The practice's name as its settings give it (`name` of the practice section), or null when they give none. */
  practiceName(scope: TenantScope): Promise<string | null> {
    return this.practiceText(scope, 'name');
  }

  /** A string member of the practice settings, or null when they have none. */
  async practiceText(scope: TenantScope, key: string): Promise<string | null> {
    const value = (await this.settings.get(scope, 'practice')).data[key];
    return typeof value === 'string' && value.trim() ? value.trim() : null;
  }

  async update(auth: AuthContext, section: SettingsSection, body: unknown): Promise<SettingsUpdatedDto> {
    const patch = parseSettingsPatch(body);
    if (section === 'practice') {
      const refused = [...Object.keys(patch.set), ...patch.deleted].filter((key) => Object.hasOwn(ASSIGNED_BY_OPERATORS, key));
      if (refused.length) throw new ValidationFailedException(refused.map((field) => ({ field, message: ASSIGNED_BY_OPERATORS[field] })));
    }
    const doc = await this.settings.merge(auth, section, patch.set, patch.deleted);
    return { message: 'Settings updated', settings: await this.shown(auth, section, doc.data) };
  }

  /** A section as the API shows it: the practice's with its operator-assigned sending number. */
  private async shown(scope: TenantScope, section: SettingsSection, data: Record<string, unknown>): Promise<Record<string, unknown>> {
    if (section !== 'practice') return data;
    const smsFromNumber = await this.smsNumbers.find(scope);
    return smsFromNumber ? { ...data, smsFromNumber } : data;
  }
}
