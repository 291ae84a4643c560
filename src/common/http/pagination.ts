import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { ValidationFailedException } from './problem';

/** `limit` and `cursor`, which every list takes. */
export class PageQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 50, description: 'Page size' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiPropertyOptional({ description: "Opaque cursor from the previous page's `nextCursor`" })
  @IsOptional()
  @IsString()
  @MaxLength(512)
  cursor?: string;
}

export interface PageRequest {
  limit: number;
  after?: Cursor;
}

/** A position in a newest-first list: the last row's sort value and id (keyset pagination). */
export interface Cursor {
  value: string;
  id: string;
}

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.value, cursor.id])).toString('base64url');
}

export function decodeCursor(raw: string): Cursor {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (Array.isArray(parsed) && parsed.length === 2 && typeof parsed[0] === 'string' && typeof parsed[1] === 'string') {
      return { value: parsed[0], id: parsed[1] };
    }
  } catch {
    // fall through to the validation error
  }
  throw new ValidationFailedException([{ field: 'cursor', message: 'is not a cursor this API issued' }]);
}

export function pageRequest(query: PageQueryDto): PageRequest {
  return { limit: query.limit ?? 50, after: query.cursor ? decodeCursor(query.cursor) : undefined };
}
