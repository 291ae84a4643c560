import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../../common/auth/auth.types';
import { ValidationFailedException } from '../../common/http/errors/problem';
import { Transactions } from '../../database/transactions';
import { ClinicalService, CreateEncounterDto, EncounterDto } from '../patients';
import { AppointmentsService } from '../scheduling';

/**
 * An encounter recorded through the API: stored in the patient's clinical data (Patients), naming a provider
 * and an appointment that Scheduling owns. Scheduling itself records encounters through Patients when an
 * appointment completes, so this flow sits above both rather than Patients calling back into Scheduling.
 */
@Injectable()
export class EncountersService {
  constructor(
    private readonly transactions: Transactions,
    private readonly clinical: ClinicalService,
    private readonly appointments: AppointmentsService,
  ) {}

  /**
   * A providerId must name a provider of the caller's tenant and mode, an appointmentId an appointment of
   * this patient (and then providerId, if sent, its provider), checked in the encounter's transaction.
   * Otherwise: 400 naming the field. An unknown patient is 404 first.
   */
  add(auth: AuthContext, patientId: string, dto: CreateEncounterDto): Promise<EncounterDto> {
    const references = { providerId: dto.providerId?.toLowerCase() ?? null, appointmentId: dto.appointmentId?.toLowerCase() ?? null };
    return this.transactions.run(async (tx) => {
      await this.clinical.requirePatient(auth, patientId, tx);
      const problems = await this.appointments.encounterReferenceProblems(auth, patientId, references, tx);
      if (problems.length) throw new ValidationFailedException(problems);
      return this.clinical.addEncounter(auth, patientId, dto, tx);
    });
  }
}
