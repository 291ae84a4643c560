import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { PageOf } from '../../../../common/http/lists/pagination';
import { IsInstant } from '../../is-instant';
import { exampleFromNow } from '../../../../common/http/openapi/example-dates';

export class CreateTimeOffDto {
  @ApiProperty({ format: 'date-time', ...exampleFromNow(14, '00:00') })
  @IsInstant()
  start!: string;

  /** After start. */
  @ApiProperty({ format: 'date-time', ...exampleFromNow(19, '00:00') })
  @IsInstant()
  end!: string;

  @ApiPropertyOptional({ example: 'Annual leave' })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  reason?: string;
}

export class TimeOffDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ format: 'uuid' })
  providerId!: string;

  @ApiProperty({ format: 'date-time' })
  start!: string;

  @ApiProperty({ format: 'date-time' })
  end!: string;

  @ApiProperty({ nullable: true, type: String })
  reason!: string | null;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;
}

export class TimeOffListDto extends PageOf(TimeOffDto, 'timeOff', 'Ascending by start') {}
