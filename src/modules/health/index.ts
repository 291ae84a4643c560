// What other modules may use of health: the Nest module.
export { HealthModule } from './health.module';
