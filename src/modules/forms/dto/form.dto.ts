import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsOptional } from 'class-validator';
import { PageOf, PageQueryDto } from '../../../common/http/lists/pagination';
import { FIELD_TYPES } from '../form-rules';
import type { FieldType } from '../form-rules';
import { FORM_FIELDS_EXAMPLE } from './create-form.dto';

/** A field as the API answers it: `required` always present, optional members only when set. */
export class FormFieldOutDto {
  @ApiProperty({ example: 'reason' })
  id!: string;

  @ApiProperty({ example: 'Reason for your visit' })
  label!: string;

  @ApiProperty({ enum: FIELD_TYPES })
  type!: FieldType;

  required!: boolean;

  @ApiPropertyOptional({ type: [String] })
  options?: string[];

  placeholder?: string;
  helpText?: string;
  min?: number;
  max?: number;
  maxLength?: number;
}

export class FormDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ example: 'New patient intake' })
  name!: string;

  @ApiProperty({ example: 'new-patient-intake' })
  slug!: string;

  @ApiProperty({ nullable: true, type: String })
  description!: string | null;

  /** The current version's fields. */
  @ApiProperty({ type: [FormFieldOutDto], example: FORM_FIELDS_EXAMPLE })
  fields!: FormFieldOutDto[];

  isActive!: boolean;

  /** 1 at creation; each change of `fields` adds one. */
  @ApiProperty({ type: 'integer', example: 1 })
  version!: number;

  @ApiProperty({ type: 'integer', example: 0 })
  submissionsCount!: number;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt!: string;
}

export class FormListDto extends PageOf(FormDto, 'forms') {}

const toBoolean = ({ value }: { value: unknown }): unknown => (value === 'true' ? true : value === 'false' ? false : value);

/** GET /forms: a page, newest first. */
export class ListFormsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ type: Boolean })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  isActive?: boolean;
}
