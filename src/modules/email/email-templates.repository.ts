import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { PageRequest } from '../../common/http/lists/pagination';
import { TenantScope } from '../../database/tenant-owned.entity';
import { Page, TenantEntityRepository } from '../../database/tenant-scoped.repository';
import { EmailTemplateEntity } from './entities/email-template.entity';

@Injectable()
export class EmailTemplatesRepository extends TenantEntityRepository<EmailTemplateEntity> {
  constructor(@InjectRepository(EmailTemplateEntity) repository: Repository<EmailTemplateEntity>) {
    super(repository);
  }

  list(scope: TenantScope, page: PageRequest, tx?: EntityManager): Promise<Page<EmailTemplateEntity>> {
    return this.paginate(this.query(scope, 't', tx), page);
  }
}
