import { Module } from '@nestjs/common';
import { AuditPartitions } from './audit-partitions.service';

/** The audit log's monthly partitions, for the workers' retention sweep (without the API's audit hook and writer). */
@Module({ providers: [AuditPartitions], exports: [AuditPartitions] })
export class AuditPartitionsModule {}
