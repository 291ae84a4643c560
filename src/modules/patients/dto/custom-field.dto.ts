import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, IsIn, IsString, Length, Matches, ValidateIf } from 'class-validator';
import { CUSTOM_FIELD_TYPES } from '../patient-rules';
import type { CustomFieldType } from '../patient-rules';

export class CreateCustomFieldDto {
  /** The key in a patient's `customFields`: lower case letters, digits and `_`, starting with a letter. */
  @ApiProperty({ example: 'preferred_language' })
  @IsString()
  @Matches(/^[a-z][a-z0-9_]{0,63}$/, { message: 'must be 1-64 characters of a-z, 0-9 and _, starting with a letter' })
  key!: string;

  @ApiProperty({ example: 'Preferred language' })
  @IsString()
  @Length(1, 200)
  label!: string;

  @ApiProperty({ enum: CUSTOM_FIELD_TYPES, example: 'select' })
  @IsIn(CUSTOM_FIELD_TYPES)
  type!: CustomFieldType;

  /** Required for (and only for) `select`: the allowed values. */
  @ApiPropertyOptional({ type: [String], example: ['English', 'Welsh', 'Polish'] })
  @ValidateIf((o: CreateCustomFieldDto) => o.type === 'select' || o.options !== undefined)
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(200)
  @ArrayUnique()
  @IsString({ each: true })
  @Length(1, 200, { each: true })
  options?: string[];
}

export class CustomFieldDto {
  @ApiProperty({ example: 'insurer' })
  key!: string;

  @ApiProperty({ example: 'Insurance provider' })
  label!: string;

  @ApiProperty({ enum: CUSTOM_FIELD_TYPES })
  type!: CustomFieldType;

  @ApiProperty({ type: [String], nullable: true, description: 'The allowed values of a select field; null for other types' })
  options!: string[] | null;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;
}

export class CustomFieldListDto {
  @ApiProperty({ type: [CustomFieldDto] })
  fields!: CustomFieldDto[];
}
