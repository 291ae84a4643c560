import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { TenantScope } from '../../database/tenant-owned.entity';
import { PatientsService } from '../patients';
import { SettingsService } from '../settings';

/**
 * What a template sees: `{{patient.firstName}}`, `{{practice.name}}` and the caller's own variables
 * (`{{appointmentTime}}`). Only the patient fields below are exposed: a template is text anyone with
 * `emails:write` can write, and clinical data, dates of birth, addresses and custom fields have no
 * business in a bulk message.
 */
export interface TemplatePatient {
  firstName: string;
  lastName: string;
  email?: string | null;
  phone?: string | null;
  joiningCode?: string | null;
}

/**
 * The appointment a reminder is about (`{{appointment.localTime}}`): its start as an instant and as the
 * provider's local date (`yyyy-MM-dd`) and time (`HH:mm`) in `timezone`, so a text reads as the practice's clock.
 */
export interface TemplateAppointment {
  datetime: string;
  localDate: string;
  localTime: string;
  timezone: string;
  durationMinutes: number;
  providerName: string;
  typeName: string | null;
  manageUrl: string;
}

export interface TemplateContextInput {
  /** The recipient, when the message goes to a patient. */
  patient?: TemplatePatient | null;
  /** The practice settings document (`/settings/practice`). */
  practice?: Record<string, unknown> | null;
  /** The caller's variables (`variables` / `templateVariables` in a request body). */
  variables?: Record<string, unknown> | null;
  /** The appointment a reminder is about. */
  appointment?: TemplateAppointment | null;
}

export type TemplateContext = Record<string, unknown> & { patient: Record<string, unknown>; practice: Record<string, unknown> };

/**
 * Caller variables sit at the top level. `practice` always comes from the settings, a reminder's
 * `appointment` always wins over a caller's variable of that name, and a known patient
 * always wins over a caller's `patient` variable; without one (a send to a bare address, a preview
 * without patientId), `variables.patient` fills the slot so a preview can show a sample name.
 */
export function buildTemplateContext({ patient, practice, variables, appointment }: TemplateContextInput): TemplateContext {
  const callerPatient = variables?.patient;
  return {
    ...(variables ?? {}),
    patient: patient ? patientFields(patient) : isPlainObject(callerPatient) ? callerPatient : {},
    practice: { ...(practice ?? {}) },
    ...(appointment ? { appointment: { ...appointment } } : {}),
  };
}

function patientFields(patient: TemplatePatient): Record<string, unknown> {
  return {
    firstName: patient.firstName,
    lastName: patient.lastName,
    fullName: `${patient.firstName} ${patient.lastName}`.trim(),
    email: patient.email ?? null,
    phone: patient.phone ?? null,
    joiningCode: patient.joiningCode ?? null,
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export interface TemplateContextRequest {
  /** A loaded patient, a patient id of the caller's tenant and mode, or none. */
  patient?: TemplatePatient | string | null;
  variables?: Record<string, unknown> | null;
  /** The appointment a reminder is about (`{{appointment.*}}`). */
  appointment?: TemplateAppointment | null;
  /** The body field that carried the patient id, named in the 400 when it names no patient. */
  patientField?: string;
  /** The caller's transaction, to read in: a message queued inside one needs no second connection. */
  tx?: EntityManager;
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
      this.settings.get(scope, 'practice', request.tx),
    ]);
    return buildTemplateContext({ patient, practice: practice.settings, variables: request.variables, appointment: request.appointment });
  }
}
