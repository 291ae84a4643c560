import { Check, Column, Entity, Index } from 'typeorm';
import { TenantOwnedEntity } from '../../../database/tenant-owned.entity';
import type { PatientStatus, PatientType } from '../patient-rules';

/** What `search_text` is generated from (the same text as the migration's, which the search index serves). */
export const PATIENT_SEARCH_TEXT =
  "lower(first_name || ' ' || last_name || ' ' || coalesce(email, '') || ' ' || coalesce(phone, '') || ' ' || joining_code)";

/**
 * A patient of one tenant in one mode. docs/decisions/0001-indexes-for-lists-at-scale.md says which index
 * serves which filter, and why; the GIN and expression indexes TypeORM cannot express are declared with
 * `synchronize: false` (named, so that migration:generate neither drops nor recreates them).
 */
@Entity('patients')
@Index('IDX_PATIENTS_TENANT_MODE_CREATED', { synchronize: false }) // (tenant_id, mode, created_at, id) INCLUDE (search_text)
@Index('IDX_PATIENTS_TENANT_MODE_UPDATED', ['tenantId', 'mode', 'updatedAt'])
@Index('IDX_PATIENTS_TENANT_MODE_BIRTH', ['tenantId', 'mode', 'dateOfBirth'], { where: 'date_of_birth IS NOT NULL' })
@Index('UQ_PATIENTS_TENANT_MODE_EXTERNAL_ID', ['tenantId', 'mode', 'externalId'], { unique: true, where: 'external_id IS NOT NULL' })
@Index('UQ_PATIENTS_TENANT_JOINING_CODE', ['tenantId', 'joiningCode'], { unique: true })
@Index('IDX_PATIENTS_SEARCH', { synchronize: false }) // GIN trigram on search_text: what `search` matches
@Index('IDX_PATIENTS_TAGS', { synchronize: false }) // GIN on tags: the `tags` filter
@Index('IDX_PATIENTS_TENANT_MODE_EMAIL', { synchronize: false })
@Index('IDX_PATIENTS_LIVE_PHONE', ['phone'], { where: `phone IS NOT NULL AND mode = 'live'` })
@Check(`"patient_type" IN ('prospect', 'patient', 'lead')`)
@Check(`"patient_status" IN ('active', 'inactive', 'archived', 'discharged')`)
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

  @Column({ type: 'varchar', length: 8, default: 'prospect' })
  patientType!: PatientType;

  @Column({ type: 'varchar', length: 10, default: 'active' })
  patientStatus!: PatientStatus;

  @Column({ type: 'text', array: true, default: '{}' })
  tags!: string[];

  @Column({ type: 'jsonb', default: () => "'{}'" })
  customFields!: Record<string, unknown>;

  @Column({ type: 'boolean', default: false })
  emailOptOut!: boolean;

  @Column({ type: 'boolean', default: false })
  smsOptOut!: boolean;

  /** Incremented by every update; the ETag is derived from it. */
  @Column({ type: 'integer', default: 1 })
  version!: number;

  /** Lower-cased names, email, phone and joining code: what `search` matches (trigram index). Never read. */
  @Column({
    type: 'text',
    generatedType: 'STORED',
    asExpression: PATIENT_SEARCH_TEXT,
    nullable: true,
    select: false,
    insert: false,
    update: false,
  })
  readonly searchText?: string;
}
