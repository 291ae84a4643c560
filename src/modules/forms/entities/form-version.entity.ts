import { Column, Entity, Index } from 'typeorm';
import { References } from '../../../database/references';
import { TenantOwnedEntity } from '../../../database/tenant-owned.entity';
import type { FieldDefinition } from '../form-rules';

/** The fields of one version of a form; never changed once written, so a submission can always be read back against them. */
@Entity('form_versions')
@Index('UQ_FORM_VERSIONS_TENANT_MODE_FORM_VERSION', ['tenantId', 'mode', 'formId', 'version'], { unique: true })
export class FormVersionEntity extends TenantOwnedEntity {
  @Column('uuid')
  formId!: string;

  @References('FormEntity', 'form_id', 'CASCADE')
  readonly formFk?: never;

  @Column({ type: 'integer' })
  version!: number;

  @Column({ type: 'jsonb' })
  fields!: FieldDefinition[];
}
