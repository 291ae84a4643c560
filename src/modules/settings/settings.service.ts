import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AuthContext } from '../../common/auth/auth.types';
import { ValidationFailedException } from '../../common/http/errors/problem';
import { TenantScope } from '../../database/tenant-owned.entity';
import { SettingsDto, SettingsUpdatedDto } from './dto/settings.dto';
import { SettingsSection } from './entities/settings.entity';
import { parseSettingsPatch } from './settings-payload';
import { brandSettingsErrors, embedOriginsErrors, PageLook, pageLookOf } from './page-look';
import { practiceSettingsErrors, smsCountriesOf } from './practice-settings';
import { SettingsRepository } from './settings.repository';
import { SmsNumbersService } from '../sms-numbers';
import { TenantsService } from '../tenants';

/** What a patient-facing text calls a practice that neither its settings nor its tenant name. */
const UNNAMED_PRACTICE = 'the practice';

@Injectable()
export class SettingsService {
  constructor(
    private readonly settings: SettingsRepository,
    private readonly smsNumbers: SmsNumbersService,
    private readonly tenants: TenantsService,
  ) {}

  /** A section as the API shows it (read in `tx` when given: inside a transaction, pass it). */
  async get(scope: TenantScope, section: SettingsSection, tx?: EntityManager): Promise<SettingsDto> {
    const doc = await this.settings.get(scope, section, tx);
    return { settings: await this.shown(scope, section, doc.data, tx), updatedAt: doc.updatedAt ? doc.updatedAt.toISOString() : null };
  }

  /**
   * The practice's name as patients read it (the manage page and its calendar file, the unsubscribe page, an
   * SMS HELP reply, a booking notice): `name` of the practice settings, else the tenant's name. Inside a
   * transaction, pass it.
   */
  async practiceName(scope: TenantScope, tx?: EntityManager): Promise<string> {
    return this.nameIn(scope, (await this.settings.get(scope, 'practice', tx)).data, tx);
  }

  private async nameIn(scope: TenantScope, practice: Record<string, unknown>, tx?: EntityManager): Promise<string> {
    const value = practice.name;
    if (typeof value === 'string' && value.trim()) return value.trim();
    return (await this.tenants.find(scope.tenantId, tx))?.name ?? UNNAMED_PRACTICE;
  }

  /** How the pages patients open show the practice: its name, logo and colour, and who may frame them. */
  async pageLook(scope: TenantScope): Promise<PageLook> {
    const [practice, brand] = await Promise.all([this.settings.get(scope, 'practice'), this.settings.get(scope, 'brand')]);
    return pageLookOf(await this.nameIn(scope, practice.data), practice.data, brand.data);
  }

  /**
   * The countries whose numbers the practice may text (practice settings `smsCountries`), or null when it
   * names none (the caller then takes the country of its sending number). Inside a transaction, pass it.
   */
  async smsCountries(scope: TenantScope, tx?: EntityManager): Promise<string[] | null> {
    return smsCountriesOf((await this.settings.get(scope, 'practice', tx)).data);
  }

  async update(auth: AuthContext, section: SettingsSection, body: unknown): Promise<SettingsUpdatedDto> {
    const patch = parseSettingsPatch(body);
    const errors =
      section === 'practice'
        ? [...practiceSettingsErrors(patch.set, patch.deleted), ...embedOriginsErrors(patch.set)]
        : section === 'brand'
          ? brandSettingsErrors(patch.set)
          : [];
    if (errors.length) throw new ValidationFailedException(errors);
    const doc = await this.settings.merge(auth, section, patch.set, patch.deleted);
    return { message: 'Settings updated', settings: await this.shown(auth, section, doc.data) };
  }

  /** A section as the API shows it: the practice's with its operator-assigned sending number. */
  private async shown(
    scope: TenantScope,
    section: SettingsSection,
    data: Record<string, unknown>,
    tx?: EntityManager,
  ): Promise<Record<string, unknown>> {
    if (section !== 'practice') return data;
    const smsFromNumber = await this.smsNumbers.find(scope, tx);
    return smsFromNumber ? { ...data, smsFromNumber } : data;
  }
}
