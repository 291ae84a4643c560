import { Body, Controller, Get, Post, Query, Res } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentAuth } from '../../common/auth/current-auth.decorator';
import { Audited } from '../../common/audit/audited.decorator';
import { Authenticated } from '../../common/auth/route-policy.decorator';
import type { AuthContext } from '../../common/auth/auth.types';
import { IdParam } from '../../common/http/requests/id-param';
import { Accepted, NoStore } from '../../common/http/responses/response-headers';
import { BulkImportAcceptedDto, BulkImportDryRunDto, BulkImportDto, BulkImportJobDto, BulkImportQueryDto } from './dto/bulk-import.dto';
import { PatientImportsService } from './patient-imports.service';
import { Idempotent } from '../../common/idempotency/idempotent.decorator';

export const BULK_IMPORT_BODY_LIMIT = 10 * 1024 * 1024;

@ApiTags('Patients')
@Controller('patients/bulk-import')
@NoStore()
export class PatientImportsController {
  constructor(private readonly imports: PatientImportsService) {}

  @Post()
  @Idempotent()
  @Audited('patient_import.create')
  @Accepted((answer: { jobId: string | null }) => (answer.jobId ? ['patients', 'bulk-import', answer.jobId] : undefined))
  @RouteConfig({ bodyLimit: BULK_IMPORT_BODY_LIMIT })
  @Authenticated({ scope: 'patients:write', roles: ['OWNER', 'ADMIN'] })
  @ApiOperation({
    operationId: 'createPatientBulkImport',
    summary: 'Import up to 10,000 patients',
    description: [
      'Body up to 10 MiB. Answers 202 `{ jobId, status, total }` at once; a worker validates and writes the rows in batches, and GET /patients/bulk-import/{jobId} reports progress.',
      'Each row is a POST /patients body and stands alone: valid rows are written, bad rows are reported in `errors` with their index. A row whose externalId names an existing patient updates it (fields the row omits are kept), so re-running a file duplicates nothing. A later row repeating an earlier row’s externalId is rejected.',
      'With `?dryRun=true` every row is validated and nothing is written: answers 200 at once with the report the import would produce: `dryRun: true`, `jobId` null, `created` and `updated` 0, and the counts it would write as `wouldCreate` and `wouldUpdate`.',
    ].join('\n\n'),
  })
  @ApiAcceptedResponse({ type: BulkImportAcceptedDto })
  @ApiOkResponse({
    type: BulkImportDryRunDto,
    description: 'Dry run: the full report (`dryRun: true`, `wouldCreate`, `wouldUpdate`), nothing written',
  })
  async submit(
    @CurrentAuth() auth: AuthContext,
    @Query() query: BulkImportQueryDto,
    @Body() body: BulkImportDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<BulkImportAcceptedDto | BulkImportDryRunDto> {
    // A dry run writes nothing and answers its report at once: 200 rather than the route's 202.
    if (query.dryRun) {
      void reply.status(200);
      return this.imports.dryRun(auth, body.patients);
    }
    return this.imports.submit(auth, body.patients);
  }

  @Get(':jobId')
  @Authenticated({ scope: 'patients:read' })
  @Audited('patient_import.read', { idParam: 'jobId' })
  @ApiOperation({ operationId: 'getPatientBulkImport', summary: "An import's progress and per-row errors" })
  @ApiOkResponse({ type: BulkImportJobDto })
  status(@CurrentAuth() auth: AuthContext, @IdParam('jobId') jobId: string): Promise<BulkImportJobDto> {
    return this.imports.status(auth, jobId);
  }
}
