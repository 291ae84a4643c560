import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, IsUUID, Length, Matches } from 'class-validator';
import { PageOf } from '../../../common/http/lists/pagination';
import { TimeRangePageQueryDto } from '../../../common/http/lists/time-range';

/** One audited request. Never holds the resource's data. */
export class AuditEntryDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ format: 'date-time' })
  at!: string;

  @ApiProperty({
    format: 'uuid',
    type: String,
    nullable: true,
    description: 'The API key that made the request; null for a public (keyless) route',
  })
  apiKeyId!: string | null;

  @ApiProperty({ example: 'patient.read' })
  action!: string;

  @ApiProperty({ example: 'patient' })
  resourceType!: string;

  @ApiProperty({ type: String, nullable: true, example: '0193a5b2-7c1d-7e4f-8a9b-0c1d2e3f4a5b' })
  resourceId!: string | null;

  @ApiProperty({ example: 200, description: 'The HTTP status of the answer' })
  status!: number;

  @ApiProperty({ example: 'req-7f3a' })
  requestId!: string;

  @ApiProperty({ type: String, nullable: true, example: '203.0.113.7' })
  ip!: string | null;
}

export class AuditLogDto extends PageOf(AuditEntryDto, 'entries') {}

/** GET /settings/audit-log: newest first; every filter given narrows the list. */
export class ListAuditLogQueryDto extends TimeRangePageQueryDto {
  @IsOptional()
  @IsString()
  @Length(1, 255)
  resourceId?: string;

  @ApiPropertyOptional({ example: 'patient' })
  @IsOptional()
  @Matches(/^[a-z_]{1,32}$/, { message: 'must be a resource type such as patient' })
  resourceType?: string;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  apiKeyId?: string;

  @ApiPropertyOptional({ example: 'patient.update' })
  @IsOptional()
  @Matches(/^[a-z_.]{1,64}$/, { message: 'must be an action such as patient.update' })
  action?: string;
}
