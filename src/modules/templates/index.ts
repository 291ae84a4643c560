// What other modules may use of templates: the Nest module and the service that builds a template's context.
export { TemplatesModule } from './templates.module';
export { buildTemplateContext, TemplateContextService } from './template-context';
export type { TemplateAppointment, TemplateContext, TemplateContextRequest, TemplatePatient } from './template-context';
