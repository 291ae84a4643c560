import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsObject, IsString, Length, Matches, MaxLength, ValidateNested } from 'class-validator';
import { MAX_FIELDS } from '../form-rules';
import { FORM_FIELDS_EXAMPLE } from './create-form.dto';
import { FormFieldDto } from './form-field.dto';
import { WhenClearable, WhenPresent } from '../../../common/http/requests/patch-members';

const NOT_BLANK = /\S/;

/**
 * The body of PATCH /forms/{id}: omitted members are unchanged. `fields` replaces the whole list and, when it
 * differs from the current one, makes a new version; past submissions keep the version they answered.
 */
export class UpdateFormDto {
  @ApiPropertyOptional({ example: 'Pre-visit questionnaire (2027)' })
  @WhenPresent()
  @IsString()
  @Length(1, 200)
  @Matches(NOT_BLANK, { message: 'must not be blank' })
  name?: string;

  /** `null` clears it. */
  @ApiPropertyOptional({ nullable: true, type: String })
  @WhenClearable()
  @IsString()
  @MaxLength(2000)
  description?: string | null;

  /** An inactive form refuses submissions (409 form_inactive). */
  @ApiPropertyOptional({ example: true })
  @WhenPresent()
  @IsBoolean()
  isActive?: boolean;

  @ApiPropertyOptional({ type: [FormFieldDto], example: FORM_FIELDS_EXAMPLE })
  @WhenPresent()
  @IsArray()
  @ArrayMaxSize(MAX_FIELDS)
  @IsObject({ each: true, message: 'each field must be an object' })
  @ValidateNested({ each: true })
  @Type(() => FormFieldDto)
  fields?: FormFieldDto[];
}
