import { Body, Controller, Get, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentAuth } from '../../common/auth/current-auth.decorator';
import { Audited } from '../../common/audit/audited.decorator';
import { Authenticated } from '../../common/auth/route-policy.decorator';
import type { AuthContext } from '../../common/auth/auth.types';
import { IdParam } from '../../common/http/requests/id-param';
import { Created, LocationOf, NoStore } from '../../common/http/responses/response-headers';
import { ClinicalService } from './clinical.service';
import { ClinicalDataDto, ConditionDto, CreateConditionDto, CreateMedicationDto, MedicationDto } from './dto/clinical.dto';
import { Idempotent } from '../../common/idempotency/idempotent.decorator';

/** Clinical items are read as part of the patient's clinical record, which is where Location points. */
const CLINICAL_RECORD: LocationOf = (_item, params) => ['patients', params.id, 'clinical'];

@ApiTags('Patients')
@Controller('patients/:id/clinical')
@NoStore()
export class PatientClinicalController {
  constructor(private readonly clinical: ClinicalService) {}

  @Get()
  @Authenticated({ scope: 'patients:read' })
  @Audited('patient.clinical.read')
  @ApiOperation({
    operationId: 'getPatientClinical',
    summary: "A patient's clinical data",
    description: 'Conditions, medications and encounters (FHIR R4 subset), oldest first, at most the 1,000 most recent of each.',
  })
  @ApiOkResponse({ type: ClinicalDataDto })
  get(@CurrentAuth() auth: AuthContext, @IdParam() id: string): Promise<ClinicalDataDto> {
    return this.clinical.get(auth, id);
  }

  @Post('conditions')
  @Idempotent()
  @Created(CLINICAL_RECORD)
  @Authenticated({ scope: 'patients:write' })
  @Audited('patient.condition.create')
  @ApiOperation({ operationId: 'createPatientCondition', summary: 'Record a condition' })
  @ApiCreatedResponse({ type: ConditionDto })
  addCondition(@CurrentAuth() auth: AuthContext, @IdParam() id: string, @Body() body: CreateConditionDto): Promise<ConditionDto> {
    return this.clinical.addCondition(auth, id, body);
  }

  @Post('medications')
  @Idempotent()
  @Created(CLINICAL_RECORD)
  @Authenticated({ scope: 'patients:write' })
  @Audited('patient.medication.create')
  @ApiOperation({ operationId: 'createPatientMedication', summary: 'Record a medication' })
  @ApiCreatedResponse({ type: MedicationDto })
  addMedication(@CurrentAuth() auth: AuthContext, @IdParam() id: string, @Body() body: CreateMedicationDto): Promise<MedicationDto> {
    return this.clinical.addMedication(auth, id, body);
  }
}
