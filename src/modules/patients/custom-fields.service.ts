import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AuthContext } from '../../common/auth/auth.types';
import { ValidationFailedException } from '../../common/http/errors/problem';
import { violates } from '../../database/database-errors';
import { ReadReplicas } from '../../database/read-replicas';
import { TenantScope } from '../../database/tenant-owned.entity';
import { Transactions } from '../../database/transactions';
import { CustomFieldsRepository } from './custom-fields.repository';
import { CreateCustomFieldDto, CustomFieldDto, CustomFieldListDto } from './dto/custom-field.dto';
import { CustomFieldEntity } from './entities/custom-field.entity';
import { CustomFieldDefinition } from './patient-rules';
import { CustomFieldKeyTakenException } from './patients.exceptions';
import { PatientConstraint } from './patients.repository';

@Injectable()
export class CustomFieldsService {
  constructor(
    private readonly fields: CustomFieldsRepository,
    private readonly transactions: Transactions,
    private readonly replicas: ReadReplicas,
  ) {}

  async list(auth: AuthContext): Promise<CustomFieldListDto> {
    return { fields: (await this.replicas.read((db) => this.fields.all(auth, db))).map(toDto) };
  }

  /** Defines a field; its key is unique per tenant and mode (409 custom_field_key_taken, also under races). */
  async create(auth: AuthContext, dto: CreateCustomFieldDto): Promise<CustomFieldDto> {
    if (dto.type !== 'select' && dto.options !== undefined) {
      throw new ValidationFailedException([{ field: 'options', message: 'is only allowed for select fields' }]);
    }
    const values = { key: dto.key, label: dto.label.trim(), type: dto.type, options: dto.options ?? null };
    try {
      return await this.transactions.run(async (tx) => toDto(await this.fields.insert(auth, values, tx)));
    } catch (err) {
      if (violates(err, PatientConstraint.CustomFieldKey)) throw new CustomFieldKeyTakenException(dto.key);
      throw err;
    }
  }

  /** The definitions by key, to check a patient's customFields against. */
  async definitions(scope: TenantScope, tx?: EntityManager): Promise<Map<string, CustomFieldDefinition>> {
    const rows = await this.fields.all(scope, tx);
    return new Map(rows.map((r) => [r.key, { key: r.key, type: r.type, options: r.options }]));
  }
}

function toDto(row: CustomFieldEntity): CustomFieldDto {
  return { key: row.key, label: row.label, type: row.type, options: row.options, createdAt: row.createdAt.toISOString() };
}
