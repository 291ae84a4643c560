import { Column, Entity, Index } from 'typeorm';
import { TenantOwnedEntity } from '../../../database/tenant-owned.entity';

/** An SMS template of one tenant in one mode: a Handlebars body, checked to compile when written. */
@Entity('sms_templates')
@Index('IDX_SMS_TEMPLATES_TENANT_MODE_CREATED', ['tenantId', 'mode', 'createdAt', 'id'])
export class SmsTemplateEntity extends TenantOwnedEntity {
  @Column({ type: 'varchar', length: 200 })
  name!: string;

  @Column({ type: 'text' })
  body!: string;
}
