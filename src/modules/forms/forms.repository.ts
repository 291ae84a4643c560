import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { PageRequest } from '../../common/http/lists/pagination';
import { clock } from '../../common/time/clock';
import { TenantScope } from '../../database/tenant-owned.entity';
import { Page, TenantEntityRepository } from '../../database/tenant-scoped.repository';
import { FormVersionEntity } from './entities/form-version.entity';
import { FormEntity } from './entities/form.entity';
import type { FieldDefinition } from './form-rules';

/** The writable columns of a form (its fields go with a version, see FormsService). */
export interface FormValues {
  name: string;
  slug: string;
  description: string | null;
  isActive: boolean;
  fields: FieldDefinition[];
}

/** A PATCH: the members to set (absent: unchanged); `fields` set means a new version. */
export type FormPatch = Partial<Omit<FormValues, 'slug'>>;

const COLUMNS = `id, tenant_id AS "tenantId", mode, name, slug, description, is_active AS "isActive", fields, version,
  submissions_count AS "submissionsCount", created_at AS "createdAt", updated_at AS "updatedAt"`;

@Injectable()
export class FormsRepository extends TenantEntityRepository<FormEntity> {
  constructor(@InjectRepository(FormEntity) repository: Repository<FormEntity>) {
    super(repository);
  }

  get(scope: TenantScope, id: string, tx?: EntityManager): Promise<FormEntity | null> {
    return this.findById(scope, id, tx);
  }

  create(scope: TenantScope, values: FormValues, tx: EntityManager): Promise<FormEntity> {
    return this.insert(scope, { ...values, version: 1, submissionsCount: 0 }, tx);
  }

  /** Applies a patch to a form locked by findByIdLocked; a new `fields` list is the next version. Answers the new row. */
  async applyPatch(scope: TenantScope, id: string, patch: FormPatch, tx: EntityManager): Promise<FormEntity> {
    const params: unknown[] = [id]; // $3; the scope is $1 and $2
    const param = (value: unknown): string => {
      params.push(value);
      return `$${params.length + 2}`;
    };
    const sets: string[] = [];
    if (patch.name !== undefined) sets.push(`name = ${param(patch.name)}`);
    if (patch.description !== undefined) sets.push(`description = ${param(patch.description)}`);
    if (patch.isActive !== undefined) sets.push(`is_active = ${param(patch.isActive)}`);
    if (patch.fields !== undefined) sets.push(`fields = ${param(JSON.stringify(patch.fields))}::jsonb`, 'version = version + 1');
    sets.push(`updated_at = ${param(clock.now())}`);
    const [rows] = await this.sql<[FormEntity[], number]>(
      scope,
      `UPDATE forms SET ${sets.join(', ')} WHERE tenant_id = $1 AND mode = $2 AND id = $3 RETURNING ${COLUMNS}`,
      params,
      tx,
    );
    return rows[0];
  }

  /**
   * Counts a submission in one statement, in the submission's transaction: the row lock serialises
   * concurrent submissions, so the count is exact. False when the form is (now) inactive or gone.
   */
  countSubmission(scope: TenantScope, id: string, tx: EntityManager): Promise<boolean> {
    return this.incrementIfActive(scope, id, 'submissions_count', tx);
  }

  list(scope: TenantScope, filters: { isActive?: boolean }, page: PageRequest, tx?: EntityManager): Promise<Page<FormEntity>> {
    const q = this.query(scope, 'f', tx);
    if (filters.isActive !== undefined) q.andWhere('f.is_active = :isActive', { isActive: filters.isActive });
    return this.paginate(q, page);
  }
}

@Injectable()
export class FormVersionsRepository extends TenantEntityRepository<FormVersionEntity> {
  constructor(@InjectRepository(FormVersionEntity) repository: Repository<FormVersionEntity>) {
    super(repository);
  }

  record(scope: TenantScope, formId: string, version: number, fields: FieldDefinition[], tx: EntityManager): Promise<FormVersionEntity> {
    return this.insert(scope, { formId, version, fields }, tx);
  }
}
