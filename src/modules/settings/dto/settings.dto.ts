import { ApiProperty, type SchemaObject } from '@nestjs/swagger';
import { JSON_VALUE, namedSchema } from '../../../common/http/openapi/openapi';
import type { SettingsSection } from '../entities/settings.entity';
import { MAX_SMS_COUNTRIES } from '../practice-settings';

const EXAMPLES: Record<SettingsSection, Record<string, unknown>> = {
  portal: { welcomeMessage: 'Welcome to Acme Clinic', allowOnlineBooking: true },
  practice: { name: 'Acme Clinic', timezone: 'Europe/London', currency: 'GBP' },
  brand: { primaryColor: '#0F766E', logoUrl: 'https://example.com/logo.png' },
};

/** The practice settings the API reads and checks; every other key of any section is the tenant's own. */
const KNOWN: Partial<Record<SettingsSection, Record<string, SchemaObject>>> = {
  practice: {
    smsCountries: {
      type: 'array',
      nullable: true,
      minItems: 1,
      maxItems: MAX_SMS_COUNTRIES,
      items: { type: 'string', pattern: '^[A-Z]{2}$' },
      example: ['US', 'GB'],
      description:
        'The countries whose numbers the practice texts: ISO 3166-1 alpha-2 codes in upper case, as libphonenumber-js knows them. Absent (`null` deletes it): the country of the number it texts from, any country without one.',
    },
  },
};

/**
 * One named schema per section, so each pair of operations has its own body type. The keys are the
 * tenant's own but for the few the API reads (KNOWN); values are any JSON, and `null` deletes a key.
 */
export const SETTINGS_BODY_SCHEMAS = Object.fromEntries(
  (Object.keys(EXAMPLES) as SettingsSection[]).map((section) => [
    section,
    namedSchema(`${section[0].toUpperCase()}${section.slice(1)}SettingsPatch`, {
      type: 'object',
      description: `Keys to merge into the ${section} settings; a \`null\` value deletes its key. At most 64 KiB and 10 levels deep.`,
      ...(KNOWN[section] && { properties: KNOWN[section] }),
      additionalProperties: JSON_VALUE,
      example: EXAMPLES[section],
    }),
  ]),
) as Record<SettingsSection, ReturnType<typeof namedSchema>>;

export class SettingsDto {
  @ApiProperty({ type: 'object', additionalProperties: JSON_VALUE, example: EXAMPLES.practice })
  settings!: Record<string, unknown>;

  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'null until first written' })
  updatedAt!: string | null;
}

export class SettingsUpdatedDto {
  @ApiProperty({ example: 'Settings updated' })
  message!: string;

  @ApiProperty({ type: 'object', additionalProperties: JSON_VALUE, example: EXAMPLES.practice })
  settings!: Record<string, unknown>;
}
