import { Column, Entity, Index } from 'typeorm';
import { TenantOwnedEntity } from '../../../database/tenant-owned.entity';
import type { FieldDefinition } from '../form-rules';

/**
 * A form of one tenant in one mode, with its current version's fields. Every version's fields, the
 * current one included, are also kept in form_versions, which submissions point at.
 */
@Entity('forms')
@Index('IDX_FORMS_TENANT_MODE_CREATED', ['tenantId', 'mode', 'createdAt', 'id'])
@Index('UQ_FORMS_TENANT_MODE_SLUG', ['tenantId', 'mode', 'slug'], { unique: true })
export class FormEntity extends TenantOwnedEntity {
  @Column({ type: 'varchar', length: 200 })
  name!: string;

  @Column({ type: 'varchar', length: 100 })
  slug!: string;

  @Column({ type: 'varchar', length: 2000, nullable: true })
  description!: string | null;

  @Column({ type: 'boolean' })
  isActive!: boolean;

  @Column({ type: 'jsonb' })
  fields!: FieldDefinition[];

  /** The current version of `fields`: 1 at creation, one more for each change of them. */
  @Column({ type: 'integer' })
  version!: number;

  /** Incremented by the statement that records a submission, in its transaction. */
  @Column({ type: 'integer' })
  submissionsCount!: number;
}
