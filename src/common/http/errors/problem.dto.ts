import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ERROR_CODE_NAMES, ErrorCode } from './error-codes';

export class FieldErrorDto {
  @ApiProperty({ example: 'email' })
  field!: string;

  @ApiProperty({ example: 'must be an email address' })
  message!: string;
}

/** RFC 9457 problem details, as every error is answered (application/problem+json). */
export class ProblemDto {
  @ApiProperty({ example: 'about:blank' })
  type!: string;

  @ApiProperty({ example: 400 })
  status!: number;

  @ApiProperty({
    enum: ERROR_CODE_NAMES,
    enumName: 'ErrorCode',
    example: 'validation_failed',
    description: 'Stable, machine-readable error code',
  })
  code!: ErrorCode;

  @ApiProperty({ example: 'Validation failed' })
  title!: string;

  @ApiPropertyOptional({ example: '1 field is invalid' })
  detail?: string;

  @ApiPropertyOptional({ example: '0f6f1c1e-4c1a-4d7e-9d6e-2b8f1c2a9e11' })
  requestId?: string;

  @ApiPropertyOptional({ type: [FieldErrorDto] })
  errors?: FieldErrorDto[];
}
