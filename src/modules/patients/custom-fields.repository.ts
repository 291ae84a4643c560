import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { TenantScope } from '../../database/tenant-owned.entity';
import { TenantEntityRepository } from '../../database/tenant-scoped.repository';
import { CustomFieldEntity } from './entities/custom-field.entity';

@Injectable()
export class CustomFieldsRepository extends TenantEntityRepository<CustomFieldEntity> {
  constructor(@InjectRepository(CustomFieldEntity) repository: Repository<CustomFieldEntity>) {
    super(repository);
  }

  /** Every definition of the scope, oldest first (definitions are few: a form's worth). */
  all(scope: TenantScope, tx?: EntityManager): Promise<CustomFieldEntity[]> {
    return this.find(scope, {}, { createdAt: 'ASC', id: 'ASC' }, undefined, tx);
  }
}
