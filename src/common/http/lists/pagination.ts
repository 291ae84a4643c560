import type { Type as Class } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { QueryInt } from '../requests/query';
import { ValidationFailedException } from '../errors/problem';

/** `limit` and `cursor`, which every list takes. */
export class PageQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 50, description: 'Page size' })
  @IsOptional()
  @QueryInt()
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

/** A page of a list as the API answers it: the items under the resource's name, and where the next page starts. */
export type Page<Key extends string, Item> = Record<Key, Item[]> & { nextCursor: string | null };

/**
 * The response DTO of a list, e.g. `export class PatientListDto extends PageOf(PatientDto, 'patients') {}`:
 * `{ patients: PatientDto[]; nextCursor: string | null }`, documented under the subclass's name (the schema
 * name generated clients know). `description` documents the items (their order, say).
 */
export function PageOf<Key extends string, Item>(item: Class<Item>, key: Key, description?: string): Class<Page<Key, Item>> {
  class PageDto {}
  // Applied in this order so that the document lists the items before nextCursor.
  ApiProperty({ type: [item], ...(description && { description }) })(PageDto.prototype, key);
  ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'Pass as `cursor` for the next page; null on the last page',
  })(PageDto.prototype, 'nextCursor');
  return PageDto as Class<Page<Key, Item>>;
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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** What encodeCursor writes: Date#toISOString of a year 0000–9999, which PostgreSQL takes as a timestamptz. */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function isCursorValue(value: unknown): value is string {
  if (typeof value !== 'string' || !TIMESTAMP.test(value)) return false;
  const time = Date.parse(value);
  return !Number.isNaN(time) && new Date(time).toISOString() === value; // no 30 February
}

/**
 * Reads a cursor, refusing (400) any the API could not have issued: its sort value must be a timestamp and
 * its id a uuid, so that a forged one cannot reach PostgreSQL as a value it refuses (a 500).
 */
export function decodeCursor(raw: string): Cursor {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (Array.isArray(parsed) && parsed.length === 2 && isCursorValue(parsed[0]) && typeof parsed[1] === 'string' && UUID.test(parsed[1])) {
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
