import { hasScope } from '../../common/auth/auth.types';
import type { AuthContext } from '../../common/auth/auth.types';
import type { PatientSummaryDto } from './dto/patient.dto';

/** What a patient embedded in another resource shows a key without `patients:read`: who it is and how to reach them. */
export function patientSummary(patient: PatientSummaryDto): PatientSummaryDto {
  return { id: patient.id, firstName: patient.firstName, lastName: patient.lastName, email: patient.email, phone: patient.phone };
}

/**
 * The patient as `auth` may see it inside another resource (an appointment, an event): whole with
 * `patients:read`, else its summary, so that a scheduling or webhooks scope alone reads no date of birth,
 * address, notes or custom fields.
 */
export function patientFor<T extends PatientSummaryDto>(auth: Pick<AuthContext, 'scopes'>, patient: T): T | PatientSummaryDto {
  return hasScope(auth, 'patients:read') ? patient : patientSummary(patient);
}
