// What other modules may use of schedulers: the Nest module.
export { SchedulersModule } from './schedulers.module';
