import { ApiProperty } from '@nestjs/swagger';
import { ROLES, SCOPES } from '../../../common/auth/auth.types';
import type { Role, Scope } from '../../../common/auth/auth.types';
import { PageOf } from '../../../common/http/lists/pagination';

/** An API key record. The secret itself is never shown again after creation. */
export class ApiKeyDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ example: 'Zapier integration' })
  name!: string;

  description!: string | null;

  @ApiProperty({ enum: ['test', 'live'] })
  mode!: 'test' | 'live';

  @ApiProperty({ enum: ROLES })
  role!: Role;

  @ApiProperty({ enum: SCOPES, isArray: true, nullable: true, description: 'null: every scope' })
  scopes!: Scope[] | null;

  @ApiProperty({ example: 'sk_test_4eC3', description: 'The first characters of the key' })
  prefix!: string;

  @ApiProperty({ example: 'x9Qz' })
  last4!: string;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'Recorded within about 15 seconds' })
  lastUsedAt!: string | null;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  expiresAt!: string | null;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  revokedAt!: string | null;
}

export class CreatedApiKeyDto extends ApiKeyDto {
  @ApiProperty({ example: 'sk_test_4eC39HqLyjWDarjtT1zdp7dcx9Qz0a1B2c3D4e5F', description: 'The key; shown this once' })
  key!: string;
}

export class ApiKeyListDto extends PageOf(ApiKeyDto, 'keys') {}
