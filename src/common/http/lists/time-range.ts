import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsISO8601, IsOptional } from 'class-validator';
import { PageQueryDto } from './pagination';
import { ValidationFailedException } from '../errors/problem';

/** A page of a time-ordered list narrowed to `from`..`to` (both inclusive). */
export class TimeRangePageQueryDto extends PageQueryDto {
  /** At or after (date or date-time; a date means its start, UTC). */
  @ApiPropertyOptional({ format: 'date-time', example: '2026-10-01T00:00:00.000Z' })
  @IsOptional()
  @IsISO8601({ strict: true })
  from?: string;

  /** At or before (date or date-time; a date means its end, UTC). */
  @ApiPropertyOptional({ format: 'date-time', example: '2026-10-31T23:59:59.999Z' })
  @IsOptional()
  @IsISO8601({ strict: true })
  to?: string;
}

export interface TimeRange {
  from?: Date;
  to?: Date;
}

const BARE_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The query's range as dates; a bare `to` date covers its whole day. 400 when from is after to. */
export function timeRange(query: { from?: string; to?: string }): TimeRange {
  const from = query.from ? new Date(query.from) : undefined;
  const to = query.to ? new Date(BARE_DATE.test(query.to) ? `${query.to}T23:59:59.999Z` : query.to) : undefined;
  if (from && to && from > to) throw new ValidationFailedException([{ field: 'from', message: 'must not be after to' }]);
  return { from, to };
}
