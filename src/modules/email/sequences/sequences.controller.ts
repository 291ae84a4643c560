import { Body, Controller, Get, Patch, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentAuth } from '../../../common/auth/current-auth.decorator';
import { Authenticated } from '../../../common/auth/route-policy.decorator';
import type { AuthContext } from '../../../common/auth/auth.types';
import { IdParam } from '../../../common/http/requests/id-param';
import { ApiErrors } from '../../../common/http/openapi/openapi';
import { pageRequest } from '../../../common/http/lists/pagination';
import { Accepted, Created } from '../../../common/http/responses/response-headers';
import {
  CreateSequenceDto,
  EnrollDto,
  EnrollmentListDto,
  EnrollResultDto,
  ListEnrollmentsQueryDto,
  ListSequencesQueryDto,
  SequenceCreatedDto,
  SequenceDto,
  SequenceListDto,
  STEPS_EXAMPLE,
  UpdateSequenceDto,
} from './dto/sequence.dto';
import { SequencesService } from './sequences.service';
import { Idempotent } from '../../../common/idempotency/idempotent.decorator';

const LIFECYCLE =
  'Statuses: `draft` → `active` ⇄ `paused`, any → `archived` (final); another change is 409 invalid_transition. Steps `{ templateId, delayMinutes }` name email templates of the caller’s tenant and mode (400 naming `steps.<i>.templateId` otherwise); each delay counts from the previous step (the first from the enrolment). Steps change only while draft or paused.';

@ApiTags('Email')
@Controller('emails/sequences')
export class SequencesController {
  constructor(private readonly sequences: SequencesService) {}

  @Post()
  @Idempotent()
  @Created((created: SequenceCreatedDto) => ['emails', 'sequences', created.sequence.id])
  @Authenticated({ scope: 'emails:write' })
  @ApiOperation({
    operationId: 'createEmailSequence',
    summary: 'Create an email sequence (a drip campaign), as a draft',
    description: LIFECYCLE,
  })
  @ApiCreatedResponse({ type: SequenceCreatedDto, headers: { Location: { description: 'The sequence URL', schema: { type: 'string' } } } })
  create(@CurrentAuth() auth: AuthContext, @Body() body: CreateSequenceDto): Promise<SequenceCreatedDto> {
    return this.sequences.create(auth, body);
  }

  @Get()
  @Authenticated({ scope: 'emails:read' })
  @ApiOperation({
    operationId: 'listEmailSequences',
    summary: 'List email sequences, newest first',
    description: 'Cursor pagination: pass nextCursor as cursor. Filter by status.',
  })
  @ApiOkResponse({ type: SequenceListDto })
  list(@CurrentAuth() auth: AuthContext, @Query() query: ListSequencesQueryDto): Promise<SequenceListDto> {
    return this.sequences.list(auth, query, pageRequest(query));
  }

  @Get(':id')
  @Authenticated({ scope: 'emails:read' })
  @ApiOperation({ operationId: 'getEmailSequence', summary: 'Read an email sequence' })
  @ApiOkResponse({ type: SequenceDto })
  get(@CurrentAuth() auth: AuthContext, @IdParam() id: string): Promise<SequenceDto> {
    return this.sequences.get(auth, id);
  }

  @Patch(':id')
  @Authenticated({ scope: 'emails:write' })
  @ApiOperation({
    operationId: 'updateEmailSequence',
    summary: 'Change an email sequence: name, description, status, steps',
    description: `${LIFECYCLE} Pausing holds the steps that fall due until the sequence is active again; resuming sends them. Archiving cancels every active enrolment and its pending steps. A sequence needs a step to be active.`,
  })
  @ApiOkResponse({ type: SequenceDto })
  @ApiErrors('invalid_transition')
  @ApiBody({
    type: UpdateSequenceDto,
    // A rename first: it works in any status but archived, where steps change only while draft or paused.
    examples: {
      rename: {
        summary: 'A new name and description',
        value: { name: 'New patient welcome (2027)', description: 'Three emails over the first week after registration.' },
      },
      pause: { summary: 'Pause: due steps wait until it is active again', value: { status: 'paused' } },
      steps: { summary: 'New steps (draft or paused only)', value: { steps: STEPS_EXAMPLE } },
    },
  })
  update(@CurrentAuth() auth: AuthContext, @IdParam() id: string, @Body() body: UpdateSequenceDto): Promise<SequenceDto> {
    return this.sequences.update(auth, id, body);
  }

  @Post(':id/enroll')
  @Idempotent()
  @Accepted((_: EnrollResultDto, params: Record<string, string>) => ['emails', 'sequences', params.id, 'enrollments'])
  @Authenticated({ scope: 'emails:write' })
  @ApiOperation({
    operationId: 'enrollInEmailSequence',
    summary: 'Enrol patients in an active sequence',
    description:
      'Answers 202 with counts; the steps run on the queue workers. Patients without an email address or who opted out are `skipped`; a patient enrolled before, in any status, counts as `alreadyEnrolled` and nothing changes. An unknown patient id is 400 naming `patientIds.<i>`; a sequence that is not active is 409 sequence_not_active. Each enrolment emits `sequence.enrollment.created`, and `sequence.enrollment.completed` after its last step.',
  })
  @ApiAcceptedResponse({ type: EnrollResultDto })
  @ApiErrors('sequence_not_active')
  enroll(@CurrentAuth() auth: AuthContext, @IdParam() id: string, @Body() body: EnrollDto): Promise<EnrollResultDto> {
    return this.sequences.enroll(auth, id, body);
  }

  @Get(':id/enrollments')
  @Authenticated({ scope: 'emails:read' })
  @ApiOperation({
    operationId: 'listEmailSequenceEnrollments',
    summary: "A sequence's enrolments, newest first",
    description: 'Each with its status (active, completed, cancelled, failed), the step that runs next and when. Filter by status.',
  })
  @ApiOkResponse({ type: EnrollmentListDto })
  listEnrollments(
    @CurrentAuth() auth: AuthContext,
    @IdParam() id: string,
    @Query() query: ListEnrollmentsQueryDto,
  ): Promise<EnrollmentListDto> {
    return this.sequences.listEnrollments(auth, id, query, pageRequest(query));
  }
}
