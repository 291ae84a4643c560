// What other modules may use of test-clocks: the Nest module (the API imports it; nothing else does).
export { TestClocksModule } from './test-clocks.module';
