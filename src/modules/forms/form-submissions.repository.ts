import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { PageRequest } from '../../common/http/lists/pagination';
import { TenantScope } from '../../database/tenant-owned.entity';
import { Page, TenantEntityRepository } from '../../database/tenant-scoped.repository';
import { FormSubmissionEntity } from './entities/form-submission.entity';
import type { FieldDefinition } from './form-rules';

export interface SubmissionFilters {
  patientId?: string;
  from?: Date;
  to?: Date;
}

/** A submission and the fields of the form version it answered. */
export interface SubmissionWithFields {
  submission: FormSubmissionEntity;
  fields: FieldDefinition[];
}

@Injectable()
export class FormSubmissionsRepository extends TenantEntityRepository<FormSubmissionEntity> {
  constructor(@InjectRepository(FormSubmissionEntity) repository: Repository<FormSubmissionEntity>) {
    super(repository);
  }

  record(
    scope: TenantScope,
    values: { formId: string; formVersion: number; patientId: string | null; answers: Record<string, unknown> },
    tx: EntityManager,
  ): Promise<FormSubmissionEntity> {
    return this.insert(scope, values, tx);
  }

  /** One submission of one form, with its version's fields (one indexed join). */
  async getWithFields(scope: TenantScope, formId: string, id: string): Promise<SubmissionWithFields | null> {
    const rows = await this.sql<(FormSubmissionEntity & { versionFields: FieldDefinition[] })[]>(
      scope,
      `SELECT s.id, s.tenant_id AS "tenantId", s.mode, s.form_id AS "formId", s.form_version AS "formVersion",
              s.patient_id AS "patientId", s.answers, s.created_at AS "createdAt", s.updated_at AS "updatedAt",
              v.fields AS "versionFields"
         FROM form_submissions s
         JOIN form_versions v ON v.tenant_id = s.tenant_id AND v.mode = s.mode AND v.form_id = s.form_id AND v.version = s.form_version
        WHERE s.tenant_id = $1 AND s.mode = $2 AND s.form_id = $3 AND s.id = $4`,
      [formId, id],
    );
    const row = rows[0];
    if (!row) return null;
    const { versionFields, ...submission } = row;
    return { submission, fields: versionFields };
  }

  list(
    scope: TenantScope,
    formId: string,
    filters: SubmissionFilters,
    page: PageRequest,
    tx?: EntityManager,
  ): Promise<Page<FormSubmissionEntity>> {
    const q = this.query(scope, 's', tx).andWhere('s.form_id = :formId', { formId });
    if (filters.patientId) q.andWhere('s.patient_id = :patientId', { patientId: filters.patientId });
    if (filters.from) q.andWhere('s.created_at >= :from', { from: filters.from });
    if (filters.to) q.andWhere('s.created_at <= :to', { to: filters.to });
    return this.paginate(q, page);
  }
}
