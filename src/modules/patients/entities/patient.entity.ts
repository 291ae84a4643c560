import { Column, Entity, Index } from 'typeorm';
import { TenantOwnedEntity } from '../../../database/tenant-owned.entity';
import type { PatientStatus, PatientType } from '../patient-rules';

/**
 * A patient of one tenant in one mode. Indexes and the generated `search_text` column are created by the
 * migration (1763800000000-Patients), which says which index serves which filter.
 */
@Entity('patients')
@Index('IDX_PATIENTS_TENANT_MODE_CREATED', ['tenantId', 'mode', 'createdAt', 'id'])
export class PatientEntity extends TenantOwnedEntity {
  @Column({ type: 'varchar', length: 255, nullable: true })
  externalId!: string | null;

  @Column({ type: 'char', length: 8 })
  joiningCode!: string;

  @Column({ type: 'varchar', length: 320, nullable: true })
  email!: string | null;

  /** E.164. */
  @Column({ type: 'varchar', length: 20, nullable: true })
  phone!: string | null;

  @Column({ type: 'varchar', length: 100 })
  firstName!: string;

  @Column({ type: 'varchar', length: 100 })
  lastName!: string;

  /** `YYYY-MM-DD` (a `date` column read as a string, never shifted by a timezone). */
  @Column({ type: 'date', nullable: true })
  dateOfBirth!: string | null;

  @Column({ type: 'varchar', length: 50, nullable: true })
  gender!: string | null;

  @Column({ type: 'varchar', length: 500, nullable: true })
  address!: string | null;

  @Column({ type: 'varchar', length: 8 })
  patientType!: PatientType;

  @Column({ type: 'varchar', length: 10 })
  patientStatus!: PatientStatus;

  @Column({ type: 'text', array: true })
  tags!: string[];

  @Column({ type: 'jsonb' })
  customFields!: Record<string, unknown>;

  @Column({ type: 'boolean' })
  emailOptOut!: boolean;

  /** Incremented by every update; the ETag is derived from it. */
  @Column({ type: 'integer' })
  version!: number;
}
