import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '../events';
import { ConditionsRepository, EncountersRepository, MedicationsRepository } from './clinical.repository';
import { ClinicalService } from './clinical.service';
import { CustomFieldsRepository } from './custom-fields.repository';
import { CustomFieldsService } from './custom-fields.service';
import { ConditionEntity, EncounterEntity, MedicationEntity } from './entities/clinical.entity';
import { CustomFieldEntity } from './entities/custom-field.entity';
import { PatientImportJobEntity } from './entities/patient-import-job.entity';
import { PatientEntity } from './entities/patient.entity';
import { PatientClinicalController } from './patient-clinical.controller';
import { PatientCustomFieldsController } from './patient-custom-fields.controller';
import { PatientImportsController } from './patient-imports.controller';
import { PatientImportsRepository } from './patient-imports.repository';
import { PatientImportsService } from './patient-imports.service';
import { PatientsController } from './patients.controller';
import { PatientsRepository } from './patients.repository';
import { PatientsService } from './patients.service';

@Module({
  imports: [
    TypeOrmModule.forFeature([
      PatientEntity,
      CustomFieldEntity,
      ConditionEntity,
      MedicationEntity,
      EncounterEntity,
      PatientImportJobEntity,
    ]),
    EventsModule,
  ],
  // Static paths (tags, custom-fields, bulk-import) are registered before /patients/:id; Fastify's
  // router prefers static segments anyway.
  controllers: [PatientCustomFieldsController, PatientImportsController, PatientClinicalController, PatientsController],
  providers: [
    PatientsRepository,
    CustomFieldsRepository,
    ConditionsRepository,
    MedicationsRepository,
    EncountersRepository,
    PatientImportsRepository,
    PatientsService,
    CustomFieldsService,
    ClinicalService,
    PatientImportsService,
  ],
  exports: [PatientsService, CustomFieldsService, ClinicalService, PatientImportsService],
})
export class PatientsModule {}
