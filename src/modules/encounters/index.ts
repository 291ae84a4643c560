// What other modules may use of encounters: the Nest module (the API imports it; nothing else does).
export { EncountersModule } from './encounters.module';
