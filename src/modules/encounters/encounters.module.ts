import { Module } from '@nestjs/common';
import { PatientsModule } from '../patients';
import { SchedulingModule } from '../scheduling';
import { PatientEncountersController } from './encounters.controller';
import { EncountersService } from './encounters.service';

/** Recording an encounter through the API: a flow across Patients and Scheduling, above both. */
@Module({
  imports: [PatientsModule, SchedulingModule],
  controllers: [PatientEncountersController],
  providers: [EncountersService],
  exports: [EncountersService],
})
export class EncountersModule {}
