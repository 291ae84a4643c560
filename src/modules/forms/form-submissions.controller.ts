import { Body, Controller, Get, Post, Query } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Audited } from '../../common/audit/audited.decorator';
import { CurrentAuth } from '../../common/auth/current-auth.decorator';
import { Authenticated } from '../../common/auth/route-policy.decorator';
import type { AuthContext } from '../../common/auth/auth.types';
import { IdParam } from '../../common/http/requests/id-param';
import { ApiErrors } from '../../common/http/openapi/openapi';
import { pageRequest } from '../../common/http/lists/pagination';
import { Created, NoStore } from '../../common/http/responses/response-headers';
import {
  ANSWERS_EXAMPLE,
  ListSubmissionsQueryDto,
  SubmissionDetailDto,
  SubmissionListDto,
  SubmissionResultDto,
  SubmitFormDto,
} from './dto/submission.dto';
import { FormSubmissionsService } from './form-submissions.service';
import { Idempotent } from '../../common/idempotency/idempotent.decorator';

@ApiTags('Forms')
@Controller('forms/:id')
// Submissions are what patients filled in.
@NoStore()
export class FormSubmissionsController {
  constructor(private readonly submissions: FormSubmissionsService) {}

  @Post('submit')
  @Idempotent()
  @Created((result: SubmissionResultDto, params) => ['forms', params.id, 'submissions', result.submissionId])
  @Authenticated({ scope: 'forms:write' })
  // Submissions are patient data: writing and reading them is audited (the id is the submission's).
  @Audited('form_submission.create', { idParam: 'submissionId' })
  @ApiOperation({
    operationId: 'submitForm',
    summary: 'Submit a completed form',
    description:
      "Every answer is checked against its field: required fields answered (a required checkbox checked), types, email and phone formats (phones stored in E.164), real dates, numbers within min/max, select options. Unknown field ids are refused; each problem is named once in errors[] as `fields.<fieldId>`. A patientId must name a patient of the caller's tenant and mode (else 400 naming patientId). An inactive form answers 409 form_inactive.",
  })
  @ApiCreatedResponse({
    type: SubmissionResultDto,
    headers: { Location: { description: 'The submission URL', schema: { type: 'string' } } },
  })
  @ApiErrors('form_inactive')
  // Written out so that the optional patientId is not pre-filled with an id that names nothing.
  @ApiBody({ type: SubmitFormDto, examples: { answers: { summary: 'Answers by field id', value: { fields: ANSWERS_EXAMPLE } } } })
  submit(@CurrentAuth() auth: AuthContext, @IdParam() id: string, @Body() body: SubmitFormDto): Promise<SubmissionResultDto> {
    return this.submissions.submit(auth, id, body);
  }

  @Get('submissions')
  @Authenticated({ scope: 'forms:read' })
  @Audited('form_submission.list', { resourceType: 'form' })
  @ApiOperation({
    operationId: 'listFormSubmissions',
    summary: "List a form's submissions, newest first",
    description: 'Filters: patientId, from and to (submission time; a bare date as `to` means the end of that day). Cursor pagination.',
  })
  @ApiOkResponse({ type: SubmissionListDto })
  list(@CurrentAuth() auth: AuthContext, @IdParam() id: string, @Query() query: ListSubmissionsQueryDto): Promise<SubmissionListDto> {
    return this.submissions.list(auth, id, query, pageRequest(query));
  }

  @Get('submissions/:submissionId')
  @Authenticated({ scope: 'forms:read' })
  @Audited('form_submission.read', { idParam: 'submissionId' })
  @ApiOperation({
    operationId: 'getFormSubmission',
    summary: 'Read a submission',
    description:
      'The answers as stored, with the field definitions of the form version they answered (formFields), whatever the form says today.',
  })
  @ApiOkResponse({ type: SubmissionDetailDto })
  get(
    @CurrentAuth() auth: AuthContext,
    @IdParam() id: string,
    @IdParam('submissionId') submissionId: string,
  ): Promise<SubmissionDetailDto> {
    return this.submissions.get(auth, id, submissionId);
  }
}
