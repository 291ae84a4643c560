import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { TenantScope } from '../../database/tenant-owned.entity';
import { TenantEntityRepository } from '../../database/tenant-scoped.repository';
import { ConditionEntity, EncounterEntity, MedicationEntity } from './entities/clinical.entity';

/** How many items of each kind one clinical read answers (the most recent ones). */
export const CLINICAL_READ_LIMIT = 1000;

@Injectable()
export class ConditionsRepository extends TenantEntityRepository<ConditionEntity> {
  constructor(@InjectRepository(ConditionEntity) repository: Repository<ConditionEntity>) {
    super(repository);
  }

  async ofPatient(scope: TenantScope, patientId: string, tx?: EntityManager): Promise<ConditionEntity[]> {
    const rows = await this.find(scope, { patientId }, { recordedAt: 'DESC', id: 'DESC' }, CLINICAL_READ_LIMIT, tx);
    return rows.reverse();
  }
}

@Injectable()
export class MedicationsRepository extends TenantEntityRepository<MedicationEntity> {
  constructor(@InjectRepository(MedicationEntity) repository: Repository<MedicationEntity>) {
    super(repository);
  }

  async ofPatient(scope: TenantScope, patientId: string, tx?: EntityManager): Promise<MedicationEntity[]> {
    const rows = await this.find(scope, { patientId }, { createdAt: 'DESC', id: 'DESC' }, CLINICAL_READ_LIMIT, tx);
    return rows.reverse();
  }
}

@Injectable()
export class EncountersRepository extends TenantEntityRepository<EncounterEntity> {
  constructor(@InjectRepository(EncounterEntity) repository: Repository<EncounterEntity>) {
    super(repository);
  }

  async ofPatient(scope: TenantScope, patientId: string, tx?: EntityManager): Promise<EncounterEntity[]> {
    const rows = await this.find(scope, { patientId }, { datetime: 'DESC', id: 'DESC' }, CLINICAL_READ_LIMIT, tx);
    return rows.reverse();
  }
}
