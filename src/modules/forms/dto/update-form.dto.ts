import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsObject,
  IsString,
  Length,
  Matches,
  MaxLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { MAX_FIELDS } from '../form-rules';
import { FORM_FIELDS_EXAMPLE } from './create-form.dto';
import { FormFieldDto } from './form-field.dto';

const NOT_BLANK = /\S/;
/** Validate when present; `null` is validated too (and so refused) for members that cannot be cleared. */
const present = (member: string) => ValidateIf((o: Record<string, unknown>) => o[member] !== undefined);
/** Validate when present and not null; `null` clears the member. */
const clearable = (member: string) => ValidateIf((o: Record<string, unknown>) => o[member] !== undefined && o[member] !== null);

/**
 * The body of PATCH /forms/{id}: omitted members are unchanged. `fields` replaces the whole list and, when it
 * differs from the current one, makes a new version; past submissions keep the version they answered.
 */
export class UpdateFormDto {
  @ApiPropertyOptional({ example: 'New patient intake (2027)' })
  @present('name')
  @IsString()
  @Length(1, 200)
  @Matches(NOT_BLANK, { message: 'must not be blank' })
  name?: string;

  /** `null` clears it. */
  @ApiPropertyOptional({ nullable: true, type: String })
  @clearable('description')
  @IsString()
  @MaxLength(2000)
  description?: string | null;

  /** An inactive form refuses submissions (409 form_inactive). */
  @ApiPropertyOptional({ example: true })
  @present('isActive')
  @IsBoolean()
  isActive?: boolean;

  @ApiPropertyOptional({ type: [FormFieldDto], example: FORM_FIELDS_EXAMPLE })
  @present('fields')
  @IsArray()
  @ArrayMaxSize(MAX_FIELDS)
  @IsObject({ each: true, message: 'each field must be an object' })
  @ValidateNested({ each: true })
  @Type(() => FormFieldDto)
  fields?: FormFieldDto[];
}
