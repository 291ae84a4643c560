import { Column, Entity, Index } from 'typeorm';
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

  @Column({ type: 'integer' })
  formVersion!: number;

  @Column({ type: 'uuid', nullable: true })
  patientId!: string | null;

  /** By field id; `values` is a reserved word in SQL. */
  @Column({ type: 'jsonb' })
  answers!: Record<string, unknown>;
}
