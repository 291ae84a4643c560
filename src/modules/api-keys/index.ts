// What other modules may use of api-keys: the Nest module and the key-issuing service.
export { ApiKeysModule } from './api-keys.module';
export { ApiKeysService } from './api-keys.service';
export type { NewKeySpec } from './api-keys.service';
