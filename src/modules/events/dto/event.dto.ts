import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { PageOf } from '../../../common/http/lists/pagination';
import { TimeRangePageQueryDto } from '../../../common/http/lists/time-range';
import { EVENT_TYPES, TEST_EVENT_TYPE } from '../event-types';

const LISTED_TYPES = [...EVENT_TYPES, TEST_EVENT_TYPE];

/** An event: what happened, when, and the resource as the API returned it then. */
export class EventDto {
  @ApiProperty({ format: 'uuid', description: 'A UUIDv7 (sorts by time); also the webhook-id of its deliveries' })
  id!: string;

  @ApiProperty({ enum: LISTED_TYPES, example: 'patient.created' })
  type!: string;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'The resource as the API returns it' })
  data!: Record<string, unknown>;
}

export class EventListDto extends PageOf(EventDto, 'events') {}

/** GET /events: newest first, optionally one type and a time range. */
export class ListEventsQueryDto extends TimeRangePageQueryDto {
  @ApiPropertyOptional({ enum: LISTED_TYPES })
  @IsOptional()
  @IsIn(LISTED_TYPES)
  type?: string;
}
