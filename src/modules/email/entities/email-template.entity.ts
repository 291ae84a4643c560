import { Check, Column, Entity, Index } from 'typeorm';
import { TenantOwnedEntity } from '../../../database/tenant-owned.entity';

/** An email template: a subject and at least one of an HTML and a text part, all Handlebars. */
@Entity('email_templates')
@Check(`html_content IS NOT NULL OR text_content IS NOT NULL`)
@Index('IDX_EMAIL_TEMPLATES_TENANT_MODE_CREATED', ['tenantId', 'mode', 'createdAt', 'id'])
export class EmailTemplateEntity extends TenantOwnedEntity {
  @Column({ type: 'varchar', length: 200 })
  name!: string;

  @Column({ type: 'varchar', length: 998 })
  subject!: string;

  @Column({ type: 'text', nullable: true })
  htmlContent!: string | null;

  @Column({ type: 'text', nullable: true })
  textContent!: string | null;
}
