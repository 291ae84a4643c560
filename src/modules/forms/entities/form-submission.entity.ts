import { Column, Entity, Index } from 'typeorm';
import { References } from '../../../database/references';
import { TenantOwnedEntity } from '../../../database/tenant-owned.entity';

/** A completed form: the normalised answers and the version of the form they answered. */
@Entity('form_submissions')
@Index('IDX_FORM_SUBMISSIONS_TENANT_MODE_FORM_CREATED', ['tenantId', 'mode', 'formId', 'createdAt', 'id'])
@Index('IDX_FORM_SUBMISSIONS_TENANT_MODE_FORM_PATIENT', ['tenantId', 'mode', 'formId', 'patientId', 'createdAt', 'id'], {
  where: 'patient_id IS NOT NULL',
})
export class FormSubmissionEntity extends TenantOwnedEntity {
  @Column('uuid')
  formId!: string;

  @References('FormEntity', 'form_id', 'CASCADE')
  readonly formFk?: never;

  @Column({ type: 'integer' })
  formVersion!: number;

  @Column({ type: 'uuid', nullable: true })
  patientId!: string | null;

  @References('PatientEntity', 'patient_id', 'SET NULL')
  readonly patientFk?: never;

  /** By field id; `values` is a reserved word in SQL. */
  @Column({ type: 'jsonb' })
  answers!: Record<string, unknown>;
}
