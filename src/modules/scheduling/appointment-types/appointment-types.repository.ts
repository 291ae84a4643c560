import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { PageRequest } from '../../../common/http/lists/pagination';
import { TenantScope } from '../../../database/tenant-owned.entity';
import { Page, TenantEntityRepository } from '../../../database/tenant-scoped.repository';
import { AppointmentTypeEntity } from './entities/appointment-type.entity';

@Injectable()
export class AppointmentTypesRepository extends TenantEntityRepository<AppointmentTypeEntity> {
  constructor(@InjectRepository(AppointmentTypeEntity) repository: Repository<AppointmentTypeEntity>) {
    super(repository);
  }

  list(scope: TenantScope, page: PageRequest, tx?: EntityManager): Promise<Page<AppointmentTypeEntity>> {
    return this.paginate(this.query(scope, 't', tx), page);
  }

  get(scope: TenantScope, id: string, tx?: EntityManager): Promise<AppointmentTypeEntity | null> {
    return this.findById(scope, id, tx);
  }
}
