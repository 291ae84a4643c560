import { ApiProperty } from '@nestjs/swagger';

export class SettingsDto {
  @ApiProperty({ type: 'object', additionalProperties: true, example: { timezone: 'Europe/London', currency: 'GBP' } })
  settings!: Record<string, unknown>;

  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'null until first written' })
  updatedAt!: string | null;
}

export class SettingsUpdatedDto {
  @ApiProperty({ example: 'Settings updated' })
  message!: string;

  @ApiProperty({ type: 'object', additionalProperties: true, example: { timezone: 'Europe/London', currency: 'GBP' } })
  settings!: Record<string, unknown>;
}
