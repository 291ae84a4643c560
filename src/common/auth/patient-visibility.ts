import { hasScope } from './auth.types';
import type { AuthContext } from './auth.types';

/** Who a patient is and how to reach them: the members of a patient every key that sees it may read. */
export interface PatientSummary {
  id: string;
  firstName: string;
  lastName: string;
  email: string | null;
  phone: string | null;
}

/** What a patient embedded in another resource shows a key without `patients:read`. */
export function patientSummary(patient: PatientSummary): PatientSummary {
  return { id: patient.id, firstName: patient.firstName, lastName: patient.lastName, email: patient.email, phone: patient.phone };
}

/**
 * The patient as `auth` may see it inside another resource (an appointment, an event): whole with
 * `patients:read`, else its summary, so that a scheduling or webhooks scope alone reads no date of birth,
 * address, notes or custom fields.
 */
export function patientFor<T extends PatientSummary>(auth: Pick<AuthContext, 'scopes'>, patient: T): T | PatientSummary {
  return hasScope(auth, 'patients:read') ? patient : patientSummary(patient);
}

/**
 * An event's data as GET /events shows it to `auth`: a patient event's data is the patient, an appointment
 * event's may embed one as `patient`; either is shown through patientFor. Webhook deliveries, to endpoints an
 * OWNER or ADMIN registered, carry the data as recorded.
 */
export function eventDataFor(auth: Pick<AuthContext, 'scopes'>, type: string, data: Record<string, unknown>): Record<string, unknown> {
  if (type === 'patient.created' || type === 'patient.updated') return { ...patientFor(auth, data as unknown as PatientSummary) };
  if (!type.startsWith('appointment.')) return data;
  const patient = data.patient as PatientSummary | null | undefined;
  return patient && typeof patient === 'object' ? { ...data, patient: patientFor(auth, patient) } : data;
}
