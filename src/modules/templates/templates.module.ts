import { Module } from '@nestjs/common';
import { PatientsModule } from '../patients';
import { SettingsModule } from '../settings';
import { TemplateContextService } from './template-context';

/** The data side of template rendering (patient and practice settings); the renderer is src/common/templates. */
@Module({
  imports: [PatientsModule, SettingsModule],
  providers: [TemplateContextService],
  exports: [TemplateContextService],
})
export class TemplatesModule {}
