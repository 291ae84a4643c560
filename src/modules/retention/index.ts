// What other modules may use of retention: the workers' module that runs the sweeps.
export { RetentionWorkersModule } from './retention-workers.module';
