import { PickType } from '@nestjs/swagger';
import { PageOf } from '../../../common/http/lists/pagination';
import { AuditEntryDto } from './audit-entry.dto';

/**
 * One answer that carried the patient's data: its audit entry (the same `id` as in GET /settings/audit-log),
 * when, which key, the action (`patient.read`, `patient.list` for a page of a list or search,
 * `appointment.list`, `event.list`, `email_message.read`, …), the request id and the client IP.
 */
export class PatientAccessDto extends PickType(AuditEntryDto, ['id', 'at', 'apiKeyId', 'action', 'requestId', 'ip'] as const) {}

export class PatientAccessLogDto extends PageOf(PatientAccessDto, 'entries', 'Newest first') {}
