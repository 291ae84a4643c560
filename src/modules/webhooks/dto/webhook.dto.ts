import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, IsBoolean, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { PageOf } from '../../../common/http/lists/pagination';
import { EVENT_TYPES, type EventType } from '../../events';
import { WhenClearable, WhenPresent } from '../../../common/http/requests/patch-members';

/** A webhook endpoint. Its secret is shown only when created or rotated. */
export class WebhookDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ example: 'https://example.com/webhooks/practice' })
  url!: string;

  @ApiProperty({ enum: EVENT_TYPES, isArray: true })
  events!: EventType[];

  @ApiProperty({ type: String, nullable: true })
  description!: string | null;

  @ApiProperty({ description: 'False after a delivery used its last attempt (or when set so); PATCH `enabled: true` turns it back on' })
  enabled!: boolean;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  disabledAt!: string | null;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt!: string;
}

export class WebhookWithSecretDto extends WebhookDto {
  @ApiProperty({
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    description: 'Verifies the webhook-signature of deliveries (Standard Webhooks); shown this once',
  })
  secret!: string;
}

export class WebhookListDto extends PageOf(WebhookDto, 'webhooks') {}

export class CreateWebhookDto {
  /** https, resolving to public addresses only. */
  @ApiProperty({ example: 'https://example.com/webhooks/practice', maxLength: 2048 })
  @IsString()
  @MaxLength(2048)
  url!: string;

  @ApiProperty({ enum: EVENT_TYPES, isArray: true, example: ['patient.created', 'patient.updated'] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(EVENT_TYPES.length)
  @ArrayUnique()
  @IsIn(EVENT_TYPES, { each: true })
  events!: EventType[];

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 500 })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  description?: string | null;
}

/** Every field optional; `enabled: true` re-enables an endpoint that was disabled. */
export class UpdateWebhookDto {
  @ApiPropertyOptional({ maxLength: 2048, example: 'https://example.com/webhooks/practice-v2' })
  @WhenPresent()
  @IsString()
  @MaxLength(2048)
  url?: string;

  @ApiPropertyOptional({ enum: EVENT_TYPES, isArray: true })
  @WhenPresent()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(EVENT_TYPES.length)
  @ArrayUnique()
  @IsIn(EVENT_TYPES, { each: true })
  events?: EventType[];

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 500, example: 'Practice CRM (new endpoint)' })
  @WhenClearable()
  @IsString()
  @MaxLength(500)
  description?: string | null;

  @ApiPropertyOptional()
  @WhenPresent()
  @IsBoolean()
  enabled?: boolean;
}
