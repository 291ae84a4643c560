import { Injectable } from '@nestjs/common';
import { EntityManager, In } from 'typeorm';
import { AuthContext } from '../../common/auth/auth.types';
import { PageRequest } from '../../common/http/lists/pagination';
import { assertTemplatesCompile } from '../../common/templates/template-renderer';
import { ReadReplicas } from '../../database/read-replicas';
import { TenantScope } from '../../database/tenant-owned.entity';
import { TemplateContextService } from '../templates';
import {
  CreateSmsTemplateDto,
  PreviewSmsTemplateDto,
  SmsPreviewDto,
  SmsTemplateDto,
  SmsTemplateListDto,
  UpdateSmsTemplateDto,
} from './dto/sms-template.dto';
import { SmsTemplateEntity } from './entities/sms-template.entity';
import { renderSms } from './sms-rendering';
import { SmsTemplateNotFoundException } from './sms.exceptions';
import { SmsTemplatesRepository } from './sms-templates.repository';

/** SMS templates: written only when their body compiles; previewed with the encoding and segment count. */
@Injectable()
export class SmsTemplatesService {
  constructor(
    private readonly templates: SmsTemplatesRepository,
    private readonly contexts: TemplateContextService,
    private readonly replicas: ReadReplicas,
  ) {}

  async create(auth: AuthContext, dto: CreateSmsTemplateDto): Promise<SmsTemplateDto> {
    assertTemplatesCompile({ body: ['text', dto.body] });
    return toDto(await this.templates.create(auth, { name: dto.name.trim(), body: dto.body }));
  }

  async get(auth: AuthContext, id: string): Promise<SmsTemplateDto> {
    return toDto(await this.require(auth, id));
  }

  async list(auth: AuthContext, page: PageRequest): Promise<SmsTemplateListDto> {
    const result = await this.replicas.read((db) => this.templates.list(auth, page, db));
    return { templates: result.items.map(toDto), nextCursor: result.nextCursor };
  }

  async update(auth: AuthContext, id: string, dto: UpdateSmsTemplateDto): Promise<SmsTemplateDto> {
    assertTemplatesCompile({ body: ['text', dto.body] });
    const row = await this.templates.patch(auth, id, { name: dto.name?.trim(), body: dto.body });
    if (!row) throw new SmsTemplateNotFoundException();
    return toDto(row);
  }

  /**
   * Renders without sending. A patientId shows that patient's name, email and phone in the result, so the
   * route's policy asks `patients:read` for it besides `sms:write` (scopesWhenSent). The answer names the
   * patient (the context refused an id that names none), so the audit hook lists it in their access log.
   */
  async preview(auth: AuthContext, id: string, dto: PreviewSmsTemplateDto): Promise<SmsPreviewDto> {
    const template = await this.require(auth, id);
    const context = await this.contexts.build(auth, { patient: dto.patientId, variables: dto.variables });
    return { ...renderSms(template.body, context, 'variables'), patientId: dto.patientId?.toLowerCase() ?? null };
  }

  /** The template of the scope with this id, or null (read in `tx` when given). */
  find(scope: TenantScope, id: string, tx?: EntityManager): Promise<SmsTemplateEntity | null> {
    return this.templates.get(scope, id, tx);
  }

  /** Those of the ids that name an SMS template of this tenant and mode. */
  async existing(scope: TenantScope, ids: string[]): Promise<Set<string>> {
    const unique = [...new Set(ids)];
    if (!unique.length) return new Set();
    return new Set((await this.templates.find(scope, { id: In(unique) })).map((t) => t.id));
  }

  private async require(auth: AuthContext, id: string): Promise<SmsTemplateEntity> {
    const row = await this.templates.get(auth, id);
    if (!row) throw new SmsTemplateNotFoundException();
    return row;
  }
}

export function toDto(row: SmsTemplateEntity): SmsTemplateDto {
  return { id: row.id, name: row.name, body: row.body, createdAt: row.createdAt.toISOString(), updatedAt: row.updatedAt.toISOString() };
}
