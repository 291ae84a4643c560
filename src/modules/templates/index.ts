// What other modules may use of templates: the Nest module and the service that builds a template's context.
export { TemplatesModule } from './templates.module';
export { TemplateContextService } from './template-context.service';
export type { TemplateContextRequest } from './template-context.service';
