import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditController } from './audit.controller';
import { AuditHook } from './audit.hook';
import { AuditLoader } from './audit.loader';
import { AuditRepository } from './audit.repository';
import { AuditService } from './audit.service';
import { AuditWriter } from './audit.writer';
import { AuditEntryEntity } from './entities/audit-entry.entity';

/** The audit log: the hook that records `@Audited` routes, its batched writer, and GET /settings/audit-log. */
@Module({
  imports: [TypeOrmModule.forFeature([AuditEntryEntity]), DiscoveryModule],
  controllers: [AuditController],
  providers: [AuditRepository, AuditService, AuditLoader, AuditWriter, AuditHook],
  exports: [AuditWriter],
})
export class AuditModule {}
