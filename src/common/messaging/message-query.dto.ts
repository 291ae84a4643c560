import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsUUID } from 'class-validator';
import { PageQueryDto } from '../http/lists/pagination';

/** The filters every message list takes (GET /emails/messages, GET /sms/messages). */
export class MessageListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID('all', { message: 'must be a patient id' })
  patientId?: string;

  /** The messages about one appointment: its reminders and booking notices. */
  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID('all', { message: 'must be an appointment id' })
  appointmentId?: string;
}
