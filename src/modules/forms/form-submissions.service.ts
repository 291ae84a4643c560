import { Injectable } from '@nestjs/common';
import { AuthContext } from '../../common/auth/auth.types';
import { PageRequest } from '../../common/http/lists/pagination';
import { ValidationFailedException } from '../../common/http/errors/problem';
import { timeRange } from '../../common/http/lists/time-range';
import { ReadReplicas } from '../../database/read-replicas';
import { Transactions } from '../../database/transactions';
import { EventsService } from '../events';
import { noSuchPatient, PatientsService } from '../patients';
import {
  ListSubmissionsQueryDto,
  SubmissionDetailDto,
  SubmissionDto,
  SubmissionListDto,
  SubmissionResultDto,
  SubmitFormDto,
} from './dto/submission.dto';
import { FormSubmissionEntity } from './entities/form-submission.entity';
import { checkSubmission } from './form-rules';
import { FormInactiveException, SubmissionNotFoundException } from './forms.exceptions';
import { FormsRepository } from './forms.repository';
import { FormsService } from './forms.service';
import { FormSubmissionsRepository, SubmissionFilters } from './form-submissions.repository';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Submissions of forms: validated against the form's current version, kept with that version. */
@Injectable()
export class FormSubmissionsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly forms: FormsService,
    private readonly formRows: FormsRepository,
    private readonly submissions: FormSubmissionsRepository,
    private readonly patients: PatientsService,
    private readonly events: EventsService,
    private readonly replicas: ReadReplicas,
  ) {}

  /**
   * Validates the answers against the form's current fields and records them with that version. The
   * submission row and the count's increment share one transaction, and the increment is one statement
   * that also re-checks isActive, so a form deactivated meanwhile refuses (409) and the count stays exact.
   * The `form.submitted` event (the submission as GET returns it, without formFields) commits with them.
   */
  async submit(auth: AuthContext, formId: string, dto: SubmitFormDto): Promise<SubmissionResultDto> {
    const form = await this.forms.require(auth, formId);
    if (!form.isActive) throw new FormInactiveException();
    const { values, problems } = checkSubmission(form.fields, dto.fields);
    const patientId = dto.patientId == null ? null : dto.patientId.toLowerCase(); // null: no patient, as when absent
    if (patientId !== null && !(UUID.test(patientId) && (await this.patients.find(auth, patientId)))) {
      problems.push(noSuchPatient('patientId'));
    }
    if (problems.length) throw new ValidationFailedException(problems);
    // The transaction answers plain data: a retry under the same Idempotency-Key may replay it.
    return this.transactions.run(async (tx) => {
      const row = await this.submissions.record(auth, { formId, formVersion: form.version, patientId, answers: values }, tx);
      if (!(await this.formRows.countSubmission(auth, formId, tx))) throw new FormInactiveException();
      await this.events.record(auth, 'form.submitted', toDto(row), tx);
      return { submissionId: row.id, message: 'Form submitted' };
    });
  }

  async list(auth: AuthContext, formId: string, query: ListSubmissionsQueryDto, page: PageRequest): Promise<SubmissionListDto> {
    await this.forms.require(auth, formId);
    const result = await this.replicas.read((db) => this.submissions.list(auth, formId, toFilters(query), page, db));
    return { submissions: result.items.map(toDto), nextCursor: result.nextCursor };
  }

  /** One submission with the fields of the version it answered, however the form changed since. */
  async get(auth: AuthContext, formId: string, id: string): Promise<SubmissionDetailDto> {
    const found = await this.submissions.getWithFields(auth, formId, id);
    if (!found) throw new SubmissionNotFoundException();
    return { ...toDto(found.submission), formFields: found.fields };
  }
}

function toFilters(query: ListSubmissionsQueryDto): SubmissionFilters {
  return { patientId: query.patientId?.toLowerCase(), ...timeRange(query) };
}

function toDto(row: FormSubmissionEntity): SubmissionDto {
  return {
    id: row.id,
    formId: row.formId,
    formVersion: row.formVersion,
    patientId: row.patientId,
    fields: row.answers,
    createdAt: row.createdAt.toISOString(),
  };
}
