// What other modules may use of tenants: the Nest module and its service.
export { TenantsModule } from './tenants.module';
export { TenantsService } from './tenants.service';
export type { CreatedTenant } from './tenants.service';
