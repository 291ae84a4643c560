// What other modules may use of patients: the Nest modules, the services (a scope or caller first,
// DTOs back; find… answers null, require… throws), the DTOs other APIs embed, and the date and phone
// rules other inputs share.
export { PatientsModule } from './patients.module';
export { PatientsWorkersModule } from './patients-workers.module';
export { PatientsService } from './patients.service';
export type { ConsentChange, LeadInput, PatientConsent, PatientUpdatedEvent } from './patients.service';
export { ClinicalService } from './clinical.service';
export { PatientDto, PatientSummaryDto } from './dto/patient.dto';
export { CreateEncounterDto, EncounterDto } from './dto/clinical.dto';
export { CreatePatientDto } from './dto/create-patient.dto';
export { isCalendarDate, toE164 } from './patient-rules';
export { IsPhone } from './patient-validators';
export { noSuchPatient } from './patients.exceptions';
