import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../common/auth/auth.types';
import { SettingsService } from '../modules/settings/settings.service';

/**
 * Fills a tenant's test mode with realistic demo data. Each domain adds its part here as it lands.
 * Safe to run twice: settings merge, nothing else is duplicated.
 */
@Injectable()
export class DemoSeeder {
  constructor(private readonly settings: SettingsService) {}

  async seed(tenantId: string): Promise<Record<string, unknown>> {
    const auth: AuthContext = {
      tenantId,
      tenantName: '',
      mode: 'test',
      apiKeyId: '00000000-0000-0000-0000-000000000000',
      keyName: 'seed:demo',
      role: 'OWNER',
      scopes: null,
      expiresAt: null,
    };
    await this.settings.update(auth, 'practice', {
      name: 'Riverside Family Practice',
      timezone: 'Europe/London',
      phone: '+442079460000',
      address: { line1: '12 Riverside Walk', city: 'London', postcode: 'SE1 9PX', country: 'GB' },
      openingHours: {
        monday: ['08:30', '18:00'],
        tuesday: ['08:30', '18:00'],
        wednesday: ['08:30', '18:00'],
        thursday: ['08:30', '20:00'],
        friday: ['08:30', '17:00'],
      },
    });
    await this.settings.update(auth, 'brand', {
      primaryColor: '#0F766E',
      accentColor: '#F59E0B',
      logoUrl: 'https://example.com/riverside-logo.svg',
    });
    await this.settings.update(auth, 'portal', {
      enabled: true,
      allowOnlineBooking: true,
      welcomeMessage: 'Welcome to the Riverside patient portal.',
    });
    return { tenantId, mode: 'test', seeded: { settings: 3 } };
  }
}
