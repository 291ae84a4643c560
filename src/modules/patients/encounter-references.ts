import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { AuthContext } from '../../common/auth/auth.types';
import type { FieldError } from '../../common/http/problem';

/** The records of another module that an encounter may name. */
export interface EncounterReferences {
  providerId: string | null;
  appointmentId: string | null;
}

/** Answers what is wrong with an encounter's references (errors naming providerId or appointmentId), in the encounter's transaction. */
export type EncounterReferenceCheck = (
  auth: AuthContext,
  patientId: string,
  references: EncounterReferences,
  tx: EntityManager,
) => Promise<FieldError[]>;

/**
 * Where the module that owns providers and appointments (Scheduling, which itself depends on Patients)
 * plugs in its check of an encounter's providerId and appointmentId, so that Patients checks them
 * without importing it. Without a check, an encounter that names either is refused rather than stored
 * unchecked.
 */
@Injectable()
export class EncounterReferenceChecks {
  private check?: EncounterReferenceCheck;

  provide(check: EncounterReferenceCheck): void {
    this.check = check;
  }

  async problems(auth: AuthContext, patientId: string, references: EncounterReferences, tx: EntityManager): Promise<FieldError[]> {
    if (!references.providerId && !references.appointmentId) return [];
    if (!this.check) throw new Error('No module checks encounter references: import SchedulingModule');
    return this.check(auth, patientId, references, tx);
  }
}
