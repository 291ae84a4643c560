import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { PageRequest } from '../../common/http/pagination';
import { TenantScope } from '../../database/tenant-owned.entity';
import { Page, TenantEntityRepository } from '../../database/tenant-scoped.repository';
import { EmailTemplateEntity } from './entities/email-template.entity';

@Injectable()
export class EmailTemplatesRepository extends TenantEntityRepository<EmailTemplateEntity> {
  constructor(@InjectRepository(EmailTemplateEntity) repository: Repository<EmailTemplateEntity>) {
    super(repository);
  }

  list(scope: TenantScope, page: PageRequest): Promise<Page<EmailTemplateEntity>> {
    return this.paginate(this.query(scope, 't'), page);
  }

  /** The template, locked until `tx` ends (a PATCH checks the merged parts against the row it changes). */
  getForUpdate(scope: TenantScope, id: string, tx: EntityManager): Promise<EmailTemplateEntity | null> {
    return this.query(scope, 't', tx).andWhere('t.id = :id', { id }).setLock('pessimistic_write').getOne();
  }
}
