import { Body, Controller, Get, Post, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentAuth } from '../../common/auth/current-auth.decorator';
import { Authenticated } from '../../common/auth/route-policy.decorator';
import type { AuthContext } from '../../common/auth/auth.types';
import { IdParam } from '../../common/http/id-param';
import { ApiProblemResponses } from '../../common/http/openapi';
import { ClinicalService } from './clinical.service';
import {
  ClinicalDataDto,
  ConditionDto,
  CreateConditionDto,
  CreateEncounterDto,
  CreateMedicationDto,
  EncounterDto,
  MedicationDto,
} from './dto/clinical.dto';

@ApiTags('Patients')
@Controller('patients/:id/clinical')
export class PatientClinicalController {
  constructor(private readonly clinical: ClinicalService) {}

  @Get()
  @Authenticated({ scope: 'patients:read' })
  @ApiOperation({
    summary: "A patient's clinical data",
    description: 'Conditions, medications and encounters (FHIR R4 subset), oldest first, at most the 1,000 most recent of each.',
  })
  @ApiOkResponse({ type: ClinicalDataDto })
  @ApiProblemResponses(404)
  get(@CurrentAuth() auth: AuthContext, @IdParam() id: string): Promise<ClinicalDataDto> {
    return this.clinical.get(auth, id);
  }

  @Post('conditions')
  @Authenticated({ scope: 'patients:write' })
  @ApiOperation({ summary: 'Record a condition' })
  @ApiCreatedResponse({ type: ConditionDto })
  @ApiProblemResponses(400, 404)
  async addCondition(
    @CurrentAuth() auth: AuthContext,
    @IdParam() id: string,
    @Body() body: CreateConditionDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ConditionDto> {
    return located(reply, id, await this.clinical.addCondition(auth, id, body));
  }

  @Post('medications')
  @Authenticated({ scope: 'patients:write' })
  @ApiOperation({ summary: 'Record a medication' })
  @ApiCreatedResponse({ type: MedicationDto })
  @ApiProblemResponses(400, 404)
  async addMedication(
    @CurrentAuth() auth: AuthContext,
    @IdParam() id: string,
    @Body() body: CreateMedicationDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<MedicationDto> {
    return located(reply, id, await this.clinical.addMedication(auth, id, body));
  }

  @Post('encounters')
  @Authenticated({ scope: 'patients:write' })
  @ApiOperation({ summary: 'Record an encounter', description: 'At most one encounter per appointmentId (409 encounter_exists).' })
  @ApiCreatedResponse({ type: EncounterDto })
  @ApiProblemResponses(400, 404, 409)
  async addEncounter(
    @CurrentAuth() auth: AuthContext,
    @IdParam() id: string,
    @Body() body: CreateEncounterDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<EncounterDto> {
    return located(reply, id, await this.clinical.addEncounter(auth, id, body));
  }
}

/** Clinical items are read as part of the patient's clinical record, which is where Location points. */
function located<T>(reply: FastifyReply, patientId: string, item: T): T {
  void reply.header('location', `/api/v1/patients/${patientId}/clinical`);
  return item;
}
