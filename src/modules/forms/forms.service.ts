import { Injectable } from '@nestjs/common';
import { AuthContext } from '../../common/auth/auth.types';
import { PageRequest } from '../../common/http/lists/pagination';
import { ValidationFailedException } from '../../common/http/errors/problem';
import { violates } from '../../database/database-errors';
import { ReadReplicas } from '../../database/read-replicas';
import { Transactions } from '../../database/transactions';
import { CreateFormDto } from './dto/create-form.dto';
import { FormDto, FormListDto, ListFormsQueryDto } from './dto/form.dto';
import { FormFieldDto } from './dto/form-field.dto';
import { UpdateFormDto } from './dto/update-form.dto';
import { FormEntity } from './entities/form.entity';
import { SlugTakenException, slugify } from '../../common/slug';
import { FieldDefinition, fieldDefinitionProblems, normalizeField, sameFields } from './form-rules';
import { FormNotFoundException } from './forms.exceptions';
import { FormPatch, FormsRepository, FormVersionsRepository } from './forms.repository';

/** Form definitions: create, read, list and change them; each change of `fields` is a new version. */
@Injectable()
export class FormsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly forms: FormsRepository,
    private readonly versions: FormVersionsRepository,
    private readonly replicas: ReadReplicas,
  ) {}

  /** A new form at version 1; its slug (given or derived from the name) is unique per tenant and mode. */
  async create(auth: AuthContext, dto: CreateFormDto): Promise<FormDto> {
    const fields = checkedFields(dto.fields);
    const name = dto.name.trim();
    const slug = dto.slug ?? slugify(name, 'form');
    try {
      // Transactions answer DTOs (plain data): a retry under the same Idempotency-Key may replay them.
      return await this.transactions.run(async (tx) => {
        const form = await this.forms.create(
          auth,
          { name, slug, description: dto.description?.trim() || null, isActive: dto.isActive ?? true, fields },
          tx,
        );
        await this.versions.record(auth, form.id, form.version, fields, tx);
        return toDto(form);
      });
    } catch (err) {
      if (violates(err, 'UQ_FORMS_TENANT_MODE_SLUG')) throw new SlugTakenException('form', slug);
      throw err;
    }
  }

  async get(auth: AuthContext, id: string): Promise<FormDto> {
    return toDto(await this.require(auth, id));
  }

  /** The form as an entity, for the submissions of it; 404 when the caller cannot see it. */
  async require(auth: AuthContext, id: string): Promise<FormEntity> {
    const row = await this.forms.get(auth, id);
    if (!row) throw new FormNotFoundException();
    return row;
  }

  async findBySlug(auth: AuthContext, slug: string): Promise<FormDto | null> {
    const row = await this.forms.findOne(auth, { slug });
    return row && toDto(row);
  }

  async list(auth: AuthContext, query: ListFormsQueryDto, page: PageRequest): Promise<FormListDto> {
    const result = await this.replicas.read((db) => this.forms.list(auth, { isActive: query.isActive }, page, db));
    return { forms: result.items.map(toDto), nextCursor: result.nextCursor };
  }

  /**
   * Changes name, description, isActive and fields. Fields that differ from the current ones become the
   * next version (recorded in form_versions); the form row is locked meanwhile, so two concurrent edits
   * make two versions, never one number twice.
   */
  async update(auth: AuthContext, id: string, dto: UpdateFormDto): Promise<FormDto> {
    const fields = dto.fields === undefined ? undefined : checkedFields(dto.fields);
    return this.transactions.run(async (tx) => {
      const current = await this.forms.findByIdLocked(auth, id, tx);
      if (!current) throw new FormNotFoundException();
      const patch: FormPatch = {
        name: dto.name?.trim(),
        description: dto.description === undefined ? undefined : dto.description?.trim() || null,
        isActive: dto.isActive,
        fields: fields && !sameFields(fields, current.fields) ? fields : undefined,
      };
      const updated = await this.forms.applyPatch(auth, id, patch, tx);
      if (patch.fields) await this.versions.record(auth, id, updated.version, patch.fields, tx);
      return toDto(updated);
    });
  }
}

/** The fields as stored, or 400 naming every cross-field problem (the DTO checked each field alone). */
function checkedFields(dtos: FormFieldDto[]): FieldDefinition[] {
  const fields = dtos.map((f) => normalizeField(f as FieldDefinition));
  const problems = fieldDefinitionProblems(fields);
  if (problems.length) throw new ValidationFailedException(problems);
  return fields;
}

export function toDto(row: FormEntity): FormDto {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    fields: row.fields,
    isActive: row.isActive,
    version: row.version,
    submissionsCount: row.submissionsCount,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
