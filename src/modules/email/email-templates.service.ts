import { Injectable } from '@nestjs/common';
import { AuthContext } from '../../common/auth/auth.types';
import { PageRequest } from '../../common/http/lists/pagination';
import { ValidationFailedException } from '../../common/http/errors/problem';
import { clock } from '../../common/time/clock';
import { ReadReplicas } from '../../database/read-replicas';
import { TenantScope } from '../../database/tenant-owned.entity';
import { EntityManager, In } from 'typeorm';
import { Transactions } from '../../database/transactions';
import {
  CreateEmailTemplateDto,
  EmailPreviewDto,
  EmailTemplateDto,
  EmailTemplateListDto,
  PreviewEmailTemplateDto,
  UpdateEmailTemplateDto,
} from './dto/email-template.dto';
import { TemplateContextService } from '../templates';
import { assertEmailPartsCompile, renderEmailParts } from './email-rendering';
import { EmailTemplatesRepository } from './email-templates.repository';
import { EmailTemplateNotFoundException } from './email.exceptions';
import { EmailTemplateEntity } from './entities/email-template.entity';

const NO_CONTENT = { field: 'htmlContent', message: 'or textContent is required: a template needs at least one of them' };

/** Email templates: compiled when written (a part that does not compile is a 400 naming it), rendered on preview and send. */
@Injectable()
export class EmailTemplatesService {
  constructor(
    private readonly transactions: Transactions,
    private readonly templates: EmailTemplatesRepository,
    private readonly contexts: TemplateContextService,
    private readonly replicas: ReadReplicas,
  ) {}

  async create(auth: AuthContext, dto: CreateEmailTemplateDto): Promise<EmailTemplateDto> {
    const parts = { subject: dto.subject, htmlContent: dto.htmlContent ?? null, textContent: dto.textContent ?? null };
    if (parts.htmlContent === null && parts.textContent === null) throw new ValidationFailedException([NO_CONTENT]);
    assertEmailPartsCompile(parts);
    return this.transactions.run(async (tx) => toTemplateDto(await this.templates.insert(auth, { name: dto.name.trim(), ...parts }, tx)));
  }

  async list(auth: AuthContext, page: PageRequest): Promise<EmailTemplateListDto> {
    const result = await this.replicas.read((db) => this.templates.list(auth, page, db));
    return { templates: result.items.map(toTemplateDto), nextCursor: result.nextCursor };
  }

  async get(auth: AuthContext, id: string): Promise<EmailTemplateDto> {
    return toTemplateDto(await this.require(auth, id));
  }

  /** The template as stored; 404 when the caller's tenant and mode have none with this id. */
  async require(scope: TenantScope, id: string): Promise<EmailTemplateEntity> {
    const row = await this.templates.findById(scope, id);
    if (!row) throw new EmailTemplateNotFoundException();
    return row;
  }

  /** The template of the scope with this id, or null (read in `tx` when given). */
  find(scope: TenantScope, id: string, tx?: EntityManager): Promise<EmailTemplateEntity | null> {
    return this.templates.findById(scope, id, tx);
  }

  /** Whether every id names a template of this tenant and mode (for sequences, whose steps name templates). */
  async allExist(scope: TenantScope, ids: string[]): Promise<boolean> {
    return (await this.existing(scope, ids)).size === new Set(ids).size;
  }

  /** Those of the ids that name a template of this tenant and mode. */
  async existing(scope: TenantScope, ids: string[]): Promise<Set<string>> {
    const unique = [...new Set(ids)];
    if (!unique.length) return new Set();
    return new Set((await this.templates.find(scope, { id: In(unique) })).map((t) => t.id));
  }

  async update(auth: AuthContext, id: string, dto: UpdateEmailTemplateDto): Promise<EmailTemplateDto> {
    assertEmailPartsCompile({ subject: dto.subject, htmlContent: dto.htmlContent ?? undefined, textContent: dto.textContent ?? undefined });
    return this.transactions.run(async (tx) => {
      const current = await this.templates.findByIdLocked(auth, id, tx);
      if (!current) throw new EmailTemplateNotFoundException();
      const next = {
        name: dto.name?.trim() ?? current.name,
        subject: dto.subject ?? current.subject,
        htmlContent: dto.htmlContent === undefined ? current.htmlContent : dto.htmlContent,
        textContent: dto.textContent === undefined ? current.textContent : dto.textContent,
      };
      if (next.htmlContent === null && next.textContent === null) throw new ValidationFailedException([NO_CONTENT]);
      const updatedAt = clock.now();
      await this.templates.update(auth, { id }, { ...next, updatedAt }, tx);
      return toTemplateDto(Object.assign(current, next, { updatedAt }));
    });
  }

  /** Renders the template for a patient (or none) and variables, sending nothing; naming the patient lists it in their access log. */
  async preview(auth: AuthContext, id: string, dto: PreviewEmailTemplateDto): Promise<EmailPreviewDto> {
    const template = await this.require(auth, id);
    const context = await this.contexts.build(auth, { patient: dto.patientId, variables: dto.variables });
    return { ...renderEmailParts(template, context, 'variables'), patientId: dto.patientId?.toLowerCase() ?? null };
  }
}

export function toTemplateDto(row: EmailTemplateEntity): EmailTemplateDto {
  return {
    id: row.id,
    name: row.name,
    subject: row.subject,
    htmlContent: row.htmlContent,
    textContent: row.textContent,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
