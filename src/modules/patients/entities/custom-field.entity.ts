import { Check, Column, Entity, Index } from 'typeorm';
import { TenantOwnedEntity } from '../../../database/tenant-owned.entity';
import type { CustomFieldType } from '../patient-rules';

/** A custom field definition: the keys a patient's `customFields` may hold, and their types. */
@Entity('patient_custom_fields')
@Index('UQ_PATIENT_CUSTOM_FIELDS_TENANT_MODE_KEY', ['tenantId', 'mode', 'key'], { unique: true })
@Check(`"type" IN ('text', 'number', 'boolean', 'date', 'select')`)
export class CustomFieldEntity extends TenantOwnedEntity {
  @Column({ type: 'varchar', length: 64 })
  key!: string;

  @Column({ type: 'varchar', length: 200 })
  label!: string;

  @Column({ type: 'varchar', length: 8 })
  type!: CustomFieldType;

  /** The allowed values of a `select` field; null for other types. */
  @Column({ type: 'text', array: true, nullable: true })
  options!: string[] | null;
}
