import { Body, Controller, Post } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Audited } from '../../common/audit/audited.decorator';
import type { AuthContext } from '../../common/auth/auth.types';
import { CurrentAuth } from '../../common/auth/current-auth.decorator';
import { Authenticated } from '../../common/auth/route-policy.decorator';
import { IdParam } from '../../common/http/requests/id-param';
import { ApiErrors } from '../../common/http/openapi/openapi';
import { Created, LocationOf, NoStore } from '../../common/http/responses/response-headers';
import { Idempotent } from '../../common/idempotency/idempotent.decorator';
import { CreateEncounterDto, EncounterDto } from '../patients';
import { EncountersService } from './encounters.service';

/** An encounter is read as part of the patient's clinical record, which is where Location points. */
const CLINICAL_RECORD: LocationOf = (_item, params) => ['patients', params.id, 'clinical'];

@ApiTags('Patients')
@Controller('patients/:id/clinical')
@NoStore()
export class PatientEncountersController {
  constructor(private readonly encounters: EncountersService) {}

  @Post('encounters')
  @Idempotent()
  @Created(CLINICAL_RECORD)
  @Authenticated({ scope: 'patients:write' })
  @Audited('patient.encounter.create')
  @ApiOperation({
    operationId: 'createPatientEncounter',
    summary: 'Record an encounter',
    description:
      "providerId must name a provider of your tenant and mode, and appointmentId an appointment of this patient (of your tenant and mode); with both, providerId must be the appointment's provider. Otherwise 400 `validation_failed` naming the field. At most one encounter per appointmentId (409 encounter_exists).",
  })
  @ApiCreatedResponse({ type: EncounterDto })
  @ApiErrors('encounter_exists')
  @ApiBody({
    type: CreateEncounterDto,
    // Written out so that the optional providerId and appointmentId are not pre-filled with ids that name nothing.
    examples: {
      visit: {
        summary: 'A visit',
        value: { datetime: '2026-11-21T09:30:00.000Z', type: 'consultation', reason: 'Annual review', notes: 'Blood pressure 128/82.' },
      },
    },
  })
  add(@CurrentAuth() auth: AuthContext, @IdParam() id: string, @Body() body: CreateEncounterDto): Promise<EncounterDto> {
    return this.encounters.add(auth, id, body);
  }
}
