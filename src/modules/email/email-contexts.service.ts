import { Injectable } from '@nestjs/common';
import { ValidationFailedException } from '../../common/http/problem';
import type { TemplateAppointment, TemplateContext } from '../../common/templates/template-context';
import { TenantScope } from '../../database/tenant-owned.entity';
import { type PatientDto, PatientsService } from '../patients';
import { TemplateContextService } from '../templates';

/** The recipient patient a body names, and the context a template is rendered with. */
@Injectable()
export class EmailContexts {
  constructor(
    private readonly patients: PatientsService,
    private readonly contexts: TemplateContextService,
  ) {}

  /**
   * The patient a body names (`field`), or 400 naming the field: an id of another tenant or mode is
   * unknown here. With `needsEmail`, a patient without an address is refused too.
   */
  async patient(scope: TenantScope, id: string, field: string, needsEmail: boolean): Promise<PatientDto> {
    const patient = await this.patients.requireReference(scope, id, field);
    if (needsEmail && !patient.email) throw new ValidationFailedException([{ field, message: 'names a patient without an email address' }]);
    return patient;
  }

  /**
   * `{{patient.*}}` from the patient (if any), `{{practice.*}}` from the practice settings, the caller's
   * variables, and a reminder's `{{appointment.*}}`.
   */
  build(
    scope: TenantScope,
    patient: PatientDto | null,
    variables: Record<string, unknown> | undefined,
    appointment?: TemplateAppointment,
  ): Promise<TemplateContext> {
    return this.contexts.build(scope, { patient, variables, appointment });
  }
}
