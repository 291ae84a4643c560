import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { IsSlug } from '../../../common/slug';
import { MAX_FIELDS } from '../form-rules';
import { FormFieldDto } from './form-field.dto';

const NOT_BLANK = /\S/;

export const FORM_FIELDS_EXAMPLE = [
  { id: 'full_name', label: 'Full name', type: 'text', required: true, maxLength: 200 },
  { id: 'email', label: 'Email', type: 'email', required: true },
  { id: 'reason', label: 'Reason for your visit', type: 'select', required: true, options: ['Check-up', 'Back pain', 'Other'] },
  { id: 'pain_level', label: 'Pain level', type: 'number', required: false, min: 0, max: 10 },
  { id: 'consent', label: 'I agree to the privacy notice', type: 'checkbox', required: true },
];

/** The body of POST /forms. */
export class CreateFormDto {
  @ApiProperty({ example: 'Pre-visit questionnaire' })
  @IsString()
  @Length(1, 200)
  @Matches(NOT_BLANK, { message: 'must not be blank' })
  name!: string;

  /** Unique per tenant and mode (409 slug_taken); derived from the name when absent. */
  @ApiPropertyOptional({ example: 'pre-visit-questionnaire' })
  @IsOptional()
  @IsString()
  @IsSlug()
  slug?: string;

  @ApiPropertyOptional({ example: 'Sent to every patient two days before a visit.' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string;

  @ApiPropertyOptional({ default: true })
  @IsOptional()
  @IsBoolean()
  isActive?: boolean;

  /** At most 200 fields; their ids are unique in the form. */
  @ApiProperty({ type: [FormFieldDto], example: FORM_FIELDS_EXAMPLE })
  @IsArray()
  @ArrayMaxSize(MAX_FIELDS)
  @IsObject({ each: true, message: 'each field must be an object' })
  @ValidateNested({ each: true })
  @Type(() => FormFieldDto)
  fields!: FormFieldDto[];
}
