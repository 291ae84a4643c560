import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Audited } from '../../common/audit/audited.decorator';
import { CurrentAuth } from '../../common/auth/current-auth.decorator';
import type { AuthContext } from '../../common/auth/auth.types';
import { Authenticated } from '../../common/auth/route-policy.decorator';
import { IdParam } from '../../common/http/requests/id-param';
import { PageQueryDto, pageRequest } from '../../common/http/lists/pagination';
import { NoStore } from '../../common/http/responses/response-headers';
import { ResourceNotFoundProblem } from '../../common/http/errors/problem';
import { PatientsService } from '../patients';
import { AuditService } from './audit.service';
import { PatientAccessLogDto } from './dto/patient-access.dto';

@ApiTags('Patients')
@Controller('patients')
@NoStore()
export class PatientAccessLogController {
  constructor(
    private readonly audit: AuditService,
    private readonly patients: PatientsService,
  ) {}

  @Get(':id/access-log')
  @Authenticated({ scope: 'settings:read', roles: ['OWNER', 'ADMIN'] })
  // Its own resource type: the answer lists who saw the patient, not the patient's data, so it is no access of it.
  @Audited('patient_access_log.read', { resourceType: 'patient_access_log' })
  @ApiOperation({
    operationId: 'getPatientAccessLog',
    summary: "Who saw this patient: every answer that carried the patient's data",
    description:
      "Newest first, one entry per answer that carried this patient's data: a read or update of the patient or of its clinical data, each page of a list or search that returned it, appointments (one, a page, the calendar file), events, form submissions and email messages that embedded it or named it by `patientId`. Each says when, which API key, the action (as in GET /settings/audit-log), the request id and the client IP. Entries are written in batches within about a second, and kept as long as the audit log (AUDIT_RETENTION_MONTHS).",
  })
  @ApiOkResponse({ type: PatientAccessLogDto })
  async accessLog(@CurrentAuth() auth: AuthContext, @IdParam() id: string, @Query() query: PageQueryDto): Promise<PatientAccessLogDto> {
    if (!(await this.patients.find(auth, id))) throw new ResourceNotFoundProblem('The patient');
    return this.audit.patientAccessLog(auth, id, pageRequest(query));
  }
}
