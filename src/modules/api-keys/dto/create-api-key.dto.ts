import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayUnique, IsArray, IsIn, IsISO8601, IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { WhenClearable } from '../../../common/http/requests/patch-members';
import { ROLES, SCOPES } from '../../../common/auth/auth.types';
import type { Role, Scope } from '../../../common/auth/auth.types';
import { exampleFromNow } from '../../../common/http/openapi/example-dates';

export class CreateApiKeyDto {
  /** A label to recognise the key by. */
  @IsString()
  @Length(1, 100)
  name!: string;

  @IsOptional()
  @IsString()
  @MaxLength(500)
  description?: string;

  /** At most the caller's role. Default: the caller's role. */
  @ApiPropertyOptional({ enum: ROLES })
  @IsOptional()
  @IsIn(ROLES)
  role?: Role;

  /**
   * A subset of the caller's scopes, or `null` for all scopes (only if the caller has all).
   * Default: the caller's scopes.
   */
  @ApiPropertyOptional({ enum: SCOPES, isArray: true, nullable: true })
  @WhenClearable()
  @IsArray()
  @ArrayUnique()
  @IsIn(SCOPES, { each: true })
  scopes?: Scope[] | null;

  /** When the key stops working; in the future, and no later than the caller's own expiry. */
  @ApiPropertyOptional({ format: 'date-time', ...exampleFromNow(364, '00:00') })
  @IsOptional()
  @IsISO8601({ strict: true })
  expiresAt?: string;
}
