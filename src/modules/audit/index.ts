// What other modules may use of audit: the Nest module and its service.
export { AuditModule } from './audit.module';
export { AuditService } from './audit.service';
