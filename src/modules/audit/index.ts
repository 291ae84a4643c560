// What other modules may use of audit: the Nest module and its service.
export { AuditModule } from './audit.module';
export { AuditService } from './audit.service';
export { AuditPartitionsModule } from './audit-partitions.module';
export { AuditPartitions } from './audit-partitions.service';
export type { PartitionPass } from './audit-partitions.service';
