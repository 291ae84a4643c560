import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { FIELD_ID, FIELD_TYPES, MAX_OPTIONS } from '../form-rules';
import type { FieldType } from '../form-rules';

const NOT_BLANK = /\S/;
const FINITE = { allowNaN: false, allowInfinity: false };

/**
 * One field of a form. `options` is required for (and only for) select and multiselect; `min`/`max`
 * apply to number fields, `maxLength` to text (≤ 2,000, the default) and textarea (≤ 20,000, the default).
 */
export class FormFieldDto {
  /** The key of this field's answer in a submission: 1–64 of a-z, 0-9 and `_`, unique in the form. */
  @ApiProperty({ example: 'reason_for_visit' })
  @IsString()
  @Matches(FIELD_ID, { message: 'must be 1-64 characters of a-z, 0-9 and _' })
  id!: string;

  @ApiProperty({ example: 'Reason for your visit' })
  @IsString()
  @Length(1, 200)
  @Matches(NOT_BLANK, { message: 'must not be blank' })
  label!: string;

  @ApiProperty({ enum: FIELD_TYPES, example: 'select' })
  @IsIn(FIELD_TYPES)
  type!: FieldType;

  /** A required checkbox must be checked (a consent). */
  @ApiPropertyOptional({ default: false })
  @IsOptional()
  @IsBoolean()
  required?: boolean;

  /** The choices of a select or multiselect field: 1–500 distinct, non-empty strings. */
  @ApiPropertyOptional({ type: [String], example: ['Check-up', 'Back pain', 'Other'] })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_OPTIONS)
  @ArrayUnique()
  @IsString({ each: true })
  @Length(1, 200, { each: true })
  options?: string[];

  @ApiPropertyOptional({ example: 'Tell us briefly' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  placeholder?: string;

  @ApiPropertyOptional({ example: 'This helps us book the right clinician.' })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  helpText?: string;

  /** Number fields: the smallest accepted answer. */
  @ApiPropertyOptional({ example: 0 })
  @IsOptional()
  @IsNumber(FINITE)
  min?: number;

  /** Number fields: the largest accepted answer. */
  @ApiPropertyOptional({ example: 10 })
  @IsOptional()
  @IsNumber(FINITE)
  max?: number;

  /** Text and textarea fields: the longest accepted answer, in characters. */
  @ApiPropertyOptional({ example: 500 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(20000)
  maxLength?: number;
}
