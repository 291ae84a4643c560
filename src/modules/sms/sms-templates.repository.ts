import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { PageRequest } from '../../common/http/lists/pagination';
import { clock } from '../../common/time/clock';
import { TenantScope } from '../../database/tenant-owned.entity';
import { Page, TenantEntityRepository } from '../../database/tenant-scoped.repository';
import { SmsTemplateEntity } from './entities/sms-template.entity';

export interface SmsTemplateValues {
  name: string;
  body: string;
}

@Injectable()
export class SmsTemplatesRepository extends TenantEntityRepository<SmsTemplateEntity> {
  constructor(@InjectRepository(SmsTemplateEntity) repository: Repository<SmsTemplateEntity>) {
    super(repository);
  }

  get(scope: TenantScope, id: string, tx?: EntityManager): Promise<SmsTemplateEntity | null> {
    return this.findById(scope, id, tx);
  }

  create(scope: TenantScope, values: SmsTemplateValues, tx?: EntityManager): Promise<SmsTemplateEntity> {
    return this.insert(scope, values, tx);
  }

  /** Sets the given members and updatedAt in one statement; null when the template is not the caller's. */
  async patch(scope: TenantScope, id: string, patch: Partial<SmsTemplateValues>, tx?: EntityManager): Promise<SmsTemplateEntity | null> {
    const updated = await this.update(scope, { id }, { ...patch, updatedAt: clock.now() }, tx);
    return updated ? this.get(scope, id, tx) : null;
  }

  list(scope: TenantScope, page: PageRequest, tx?: EntityManager): Promise<Page<SmsTemplateEntity>> {
    return this.paginate(this.query(scope, 't', tx), page);
  }
}
