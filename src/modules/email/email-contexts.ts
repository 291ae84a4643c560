import { Injectable } from '@nestjs/common';
import { AuthContext } from '../../common/auth/auth.types';
import { ValidationFailedException } from '../../common/http/problem';
import type { TemplateContext } from '../../common/templates/template-context';
import { TenantScope } from '../../database/tenant-owned.entity';
import type { PatientDto } from '../patients/dto/patient.dto';
import { PatientsService } from '../patients/patients.service';
import { TemplateContextService } from '../templates/template-context.service';

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
    const patient = await this.patients.find(scope, id);
    if (!patient) throw new ValidationFailedException([{ field, message: 'names no patient of this tenant and mode' }]);
    if (needsEmail && !patient.email) throw new ValidationFailedException([{ field, message: 'names a patient without an email address' }]);
    return patient;
  }

  /** `{{patient.*}}` from the patient (if any), `{{practice.*}}` from the practice settings, and the caller's variables. */
  build(auth: AuthContext, patient: PatientDto | null, variables: Record<string, unknown> | undefined): Promise<TemplateContext> {
    return this.contexts.build(auth, { patient, variables });
  }
}
