import { ApiProperty } from '@nestjs/swagger';
import { PageOf } from '../../../common/http/lists/pagination';
import { DELIVERY_STATUSES } from '../entities/webhook-delivery.entity';
import type { DeliveryStatus } from '../entities/webhook-delivery.entity';

export class WebhookAttemptDto {
  @ApiProperty({ example: 1 })
  attempt!: number;

  @ApiProperty({ format: 'date-time' })
  startedAt!: string;

  @ApiProperty({ type: Number, nullable: true, example: 500, description: "The receiver's status; null when none came" })
  statusCode!: number | null;

  @ApiProperty({ example: 84 })
  durationMs!: number;

  @ApiProperty({ type: String, nullable: true, description: 'The first 1 KiB of the answer' })
  responseBody!: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'timeout after 10000 ms' })
  error!: string | null;
}

/** One event's delivery to one endpoint, with every attempt. */
export class WebhookDeliveryDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ format: 'uuid', description: 'Also the webhook-id header of every attempt' })
  eventId!: string;

  @ApiProperty({ example: 'patient.created' })
  eventType!: string;

  @ApiProperty({ enum: DELIVERY_STATUSES })
  status!: DeliveryStatus;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  nextAttemptAt!: string | null;

  @ApiProperty({ type: [WebhookAttemptDto] })
  attempts!: WebhookAttemptDto[];

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt!: string;
}

export class WebhookDeliveryListDto extends PageOf(WebhookDeliveryDto, 'deliveries') {}
