import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AuthContext } from '../../common/auth/auth.types';
import { TenantScope } from '../../database/tenant-owned.entity';
import { ValidationFailedException } from '../../common/http/errors/problem';
import { clock } from '../../common/time/clock';
import { violates } from '../../database/database-errors';
import { Unscoped } from '../../database/tenant-scoped.repository';
import { Transactions } from '../../database/transactions';
import { ConditionsRepository, EncountersRepository, MedicationsRepository } from './clinical.repository';
import {
  ClinicalDataDto,
  ConditionDto,
  CreateConditionDto,
  CreateEncounterDto,
  CreateMedicationDto,
  EncounterDto,
  MedicationDto,
} from './dto/clinical.dto';
import { ConditionEntity, EncounterEntity, MedicationEntity } from './entities/clinical.entity';
import { EncounterExistsException, PatientNotFoundException } from './patients.exceptions';
import { PatientConstraint, PatientsRepository } from './patients.repository';

/** A patient's conditions, medications and encounters (a FHIR R4 subset), in separate tenant-scoped tables. */
@Injectable()
export class ClinicalService {
  constructor(
    private readonly patients: PatientsRepository,
    private readonly conditions: ConditionsRepository,
    private readonly medications: MedicationsRepository,
    private readonly encounters: EncountersRepository,
    private readonly transactions: Transactions,
  ) {}

  async get(auth: AuthContext, patientId: string): Promise<ClinicalDataDto> {
    await this.requirePatient(auth, patientId);
    const [conditions, medications, encounters] = await Promise.all([
      this.conditions.ofPatient(auth, patientId),
      this.medications.ofPatient(auth, patientId),
      this.encounters.ofPatient(auth, patientId),
    ]);
    return {
      conditions: conditions.map(conditionDto),
      medications: medications.map(medicationDto),
      encounters: encounters.map(encounterDto),
    };
  }

  async addCondition(auth: AuthContext, patientId: string, dto: CreateConditionDto): Promise<ConditionDto> {
    return this.transactions.run(async (tx) => {
      await this.requirePatient(auth, patientId, tx);
      if (dto.recordedAt && new Date(dto.recordedAt).getTime() > clock.nowMs() + 60_000) {
        throw new ValidationFailedException([{ field: 'recordedAt', message: 'must not be in the future' }]);
      }
      const values = {
        patientId,
        code: dto.code ?? null,
        codeSystem: dto.codeSystem ?? null,
        display: dto.display.trim(),
        clinicalStatus: dto.clinicalStatus ?? 'active',
        onsetDate: dto.onsetDate ?? null,
        recordedAt: dto.recordedAt ? new Date(dto.recordedAt) : clock.now(),
      };
      return conditionDto(await this.conditions.insert(auth, values, tx));
    });
  }

  async addMedication(auth: AuthContext, patientId: string, dto: CreateMedicationDto): Promise<MedicationDto> {
    if (dto.startDate && dto.endDate && dto.endDate < dto.startDate) {
      throw new ValidationFailedException([{ field: 'endDate', message: 'must not be before startDate' }]);
    }
    const values = {
      patientId,
      name: dto.name.trim(),
      code: dto.code ?? null,
      dosage: dto.dosage ?? null,
      status: dto.status ?? 'active',
      startDate: dto.startDate ?? null,
      endDate: dto.endDate ?? null,
    };
    return this.transactions.run(async (tx) => {
      await this.requirePatient(auth, patientId, tx);
      return medicationDto(await this.medications.insert(auth, values, tx));
    });
  }

  /**
   * Records an encounter inside the caller's transaction. Its providerId and appointmentId name records of
   * Scheduling, so the caller (the encounters workflow, above both modules) has checked them in that
   * transaction, after requirePatient; ids are stored lower-cased. A second encounter for one appointment is
   * 409 encounter_exists.
   */
  async addEncounter(scope: TenantScope, patientId: string, dto: CreateEncounterDto, tx: EntityManager): Promise<EncounterDto> {
    const values = {
      patientId,
      appointmentId: dto.appointmentId?.toLowerCase() ?? null,
      providerId: dto.providerId?.toLowerCase() ?? null,
      datetime: new Date(dto.datetime),
      type: dto.type ?? null,
      reason: dto.reason ?? null,
      notes: dto.notes ?? null,
    };
    return this.insertEncounter(scope, values, tx);
  }

  /**
   * Records the encounter of a completed appointment inside the caller's transaction (Scheduling's), so
   * that the status change and the encounter commit together or not at all. The caller has checked the
   * patient, appointment and provider; a second encounter for one appointment is 409 encounter_exists.
   */
  async recordAppointmentEncounter(
    scope: TenantScope,
    values: { patientId: string; appointmentId: string; providerId: string; datetime: Date; type: string | null; notes: string | null },
    tx: EntityManager,
  ): Promise<EncounterDto> {
    return this.insertEncounter(scope, { ...values, reason: null }, tx);
  }

  /** 404 patient_not_found unless the patient exists in the scope (inside a transaction, pass it). */
  async requirePatient(scope: TenantScope, patientId: string, tx?: EntityManager): Promise<void> {
    if (!(await this.patients.exists(scope, patientId, tx))) throw new PatientNotFoundException();
  }

  private async insertEncounter(scope: TenantScope, values: Unscoped<EncounterEntity>, tx: EntityManager): Promise<EncounterDto> {
    try {
      return encounterDto(await this.encounters.insert(scope, values, tx));
    } catch (err) {
      if (violates(err, PatientConstraint.EncounterAppointment)) throw new EncounterExistsException();
      throw err;
    }
  }
}

function conditionDto(r: ConditionEntity): ConditionDto {
  return {
    id: r.id,
    code: r.code,
    codeSystem: r.codeSystem,
    display: r.display,
    clinicalStatus: r.clinicalStatus,
    onsetDate: r.onsetDate,
    recordedAt: r.recordedAt.toISOString(),
  };
}

function medicationDto(r: MedicationEntity): MedicationDto {
  return { id: r.id, name: r.name, code: r.code, dosage: r.dosage, status: r.status, startDate: r.startDate, endDate: r.endDate };
}

function encounterDto(r: EncounterEntity): EncounterDto {
  return {
    id: r.id,
    appointmentId: r.appointmentId,
    providerId: r.providerId,
    datetime: r.datetime.toISOString(),
    type: r.type,
    reason: r.reason,
    notes: r.notes,
  };
}
