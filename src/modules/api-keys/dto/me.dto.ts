import { ApiProperty } from '@nestjs/swagger';
import { ROLES, SCOPES } from '../../../common/auth/auth.types';
import type { Role, Scope } from '../../../common/auth/auth.types';

export class MeTenantDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  name!: string;
}

export class MeKeyDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  name!: string;

  @ApiProperty({ enum: ['test', 'live'] })
  mode!: 'test' | 'live';

  @ApiProperty({ enum: ROLES })
  role!: Role;

  @ApiProperty({ enum: SCOPES, isArray: true, nullable: true })
  scopes!: Scope[] | null;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  expiresAt!: string | null;
}

export class RateLimitBudgetDto {
  @ApiProperty({ enum: ['second', 'hour', 'day'] })
  window!: string;

  limit!: number;

  remaining!: number;

  /** Unix time in seconds when the window frees a request. */
  reset!: number;
}

export class MeDto {
  tenant!: MeTenantDto;

  key!: MeKeyDto;

  @ApiProperty({ type: [RateLimitBudgetDto] })
  rateLimits!: RateLimitBudgetDto[];
}
