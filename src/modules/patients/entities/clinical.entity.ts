import { Column, Entity, Index } from 'typeorm';
import { References } from '../../../database/references';
import { TenantOwnedEntity } from '../../../database/tenant-owned.entity';
import { InstantColumn } from '../../../database/instant-column';

/** Columns every clinical item has: the tenant scope and the patient it belongs to. */
abstract class ClinicalEntity extends TenantOwnedEntity {
  @Column('uuid')
  patientId!: string;

  @References('PatientEntity', 'patient_id', 'CASCADE')
  readonly patientFk?: never;
}

/** FHIR R4 Condition, the subset the API exposes. */
@Entity('patient_conditions')
@Index('IDX_PATIENT_CONDITIONS_PATIENT', ['tenantId', 'mode', 'patientId', 'recordedAt'])
export class ConditionEntity extends ClinicalEntity {
  @Column({ type: 'varchar', length: 64, nullable: true })
  code!: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  codeSystem!: string | null;

  @Column({ type: 'varchar', length: 500 })
  display!: string;

  @Column({ type: 'varchar', length: 16 })
  clinicalStatus!: string;

  @Column({ type: 'date', nullable: true })
  onsetDate!: string | null;

  @InstantColumn()
  recordedAt!: Date;
}

/** FHIR R4 MedicationStatement, the subset the API exposes. */
@Entity('patient_medications')
@Index('IDX_PATIENT_MEDICATIONS_PATIENT', ['tenantId', 'mode', 'patientId', 'createdAt'])
export class MedicationEntity extends ClinicalEntity {
  @Column({ type: 'varchar', length: 500 })
  name!: string;

  @Column({ type: 'varchar', length: 64, nullable: true })
  code!: string | null;

  @Column({ type: 'varchar', length: 500, nullable: true })
  dosage!: string | null;

  @Column({ type: 'varchar', length: 20 })
  status!: string;

  @Column({ type: 'date', nullable: true })
  startDate!: string | null;

  @Column({ type: 'date', nullable: true })
  endDate!: string | null;
}

/** FHIR R4 Encounter, the subset the API exposes. */
@Entity('patient_encounters')
@Index('IDX_PATIENT_ENCOUNTERS_PATIENT', ['tenantId', 'mode', 'patientId', 'datetime'])
@Index('UQ_PATIENT_ENCOUNTERS_APPOINTMENT', ['tenantId', 'mode', 'appointmentId'], { unique: true, where: 'appointment_id IS NOT NULL' })
export class EncounterEntity extends ClinicalEntity {
  @Column({ type: 'uuid', nullable: true })
  appointmentId!: string | null;

  @Column({ type: 'uuid', nullable: true })
  providerId!: string | null;

  @InstantColumn()
  datetime!: Date;

  @Column({ type: 'varchar', length: 100, nullable: true })
  type!: string | null;

  @Column({ type: 'varchar', length: 1000, nullable: true })
  reason!: string | null;

  @Column({ type: 'text', nullable: true })
  notes!: string | null;
}
