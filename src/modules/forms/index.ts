// What other modules may use of forms: the Nest module and its services.
export { FormsModule } from './forms.module';
export { FormsService } from './forms.service';
export { FormSubmissionsService } from './form-submissions.service';
