// What other modules may use of settings: the Nest module and its service.
export { SettingsModule } from './settings.module';
export { SettingsService } from './settings.service';
export type { PageLook } from './page-look';
