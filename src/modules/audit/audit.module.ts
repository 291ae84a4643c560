import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditController } from './audit.controller';
import { AuditHook } from './audit.hook';
import { AuditLoader } from './audit.loader';
import { AuditRepository } from './audit.repository';
import { AuditService } from './audit.service';
import { AuditWriter } from './audit.writer';
import { PatientsModule } from '../patients';
import { AuditEntryEntity } from './entities/audit-entry.entity';
import { PatientAccessLogController } from './patient-access-log.controller';

/**
 * The audit log: the hook that records `@Audited` routes (and the patients their answers carried), its
 * batched writer, GET /settings/audit-log and GET /patients/{id}/access-log.
 */
@Module({
  imports: [TypeOrmModule.forFeature([AuditEntryEntity]), DiscoveryModule, PatientsModule],
  controllers: [AuditController, PatientAccessLogController],
  providers: [AuditRepository, AuditService, AuditLoader, AuditWriter, AuditHook],
  exports: [AuditWriter],
})
export class AuditModule {}
