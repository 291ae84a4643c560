import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '../events';
import { PatientsModule } from '../patients';
import { FormSubmissionEntity } from './entities/form-submission.entity';
import { FormVersionEntity } from './entities/form-version.entity';
import { FormEntity } from './entities/form.entity';
import { FormSubmissionsController } from './form-submissions.controller';
import { FormSubmissionsRepository } from './form-submissions.repository';
import { FormSubmissionsService } from './form-submissions.service';
import { FormsController } from './forms.controller';
import { FormsRepository, FormVersionsRepository } from './forms.repository';
import { FormsService } from './forms.service';

/** Form definitions with versions, and their submissions (linked to patients of the PatientsModule). */
@Module({
  imports: [TypeOrmModule.forFeature([FormEntity, FormVersionEntity, FormSubmissionEntity]), PatientsModule, EventsModule],
  controllers: [FormsController, FormSubmissionsController],
  providers: [FormsRepository, FormVersionsRepository, FormSubmissionsRepository, FormsService, FormSubmissionsService],
  exports: [FormsService, FormSubmissionsService],
})
export class FormsModule {}
