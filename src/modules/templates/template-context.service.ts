import { Injectable } from '@nestjs/common';
import { TenantScope } from '../../database/tenant-owned.entity';
import { buildTemplateContext, TemplateAppointment, TemplateContext, TemplatePatient } from '../../common/templates/template-context';
import { PatientsService } from '../patients';
import { SettingsService } from '../settings';

export interface TemplateContextRequest {
  /** A loaded patient, a patient id of the caller's tenant and mode, or none. */
  patient?: TemplatePatient | string | null;
  variables?: Record<string, unknown> | null;
  /** The appointment a reminder is about (`{{appointment.*}}`). */
  appointment?: TemplateAppointment | null;
  /** The body field that carried the patient id, named in the 400 when it names no patient. */
  patientField?: string;
}

/**
 * Loads what a template context needs (the patient, the practice settings) for renderTemplate in
 * src/common/templates: `renderTemplate(source, 'html', await contexts.build(auth, { patient: dto.patientId, variables }))`.
 */
@Injectable()
export class TemplateContextService {
  constructor(
    private readonly patients: PatientsService,
    private readonly settings: SettingsService,
  ) {}

  async build(scope: TenantScope, request: TemplateContextRequest): Promise<TemplateContext> {
    const [patient, practice] = await Promise.all([
      typeof request.patient === 'string'
        ? this.patients.requireReference(scope, request.patient, request.patientField ?? 'patientId')
        : request.patient,
      this.settings.get(scope, 'practice'),
    ]);
    return buildTemplateContext({ patient, practice: practice.settings, variables: request.variables, appointment: request.appointment });
  }
}
