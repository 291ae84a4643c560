import { Module } from '@nestjs/common';
import { PatientImportsProcessor } from './patient-imports.processor';
import { PatientsModule } from './patients.module';

/** The patients module's queue processors; imported by WorkersModule. */
@Module({
  imports: [PatientsModule],
  providers: [PatientImportsProcessor],
})
export class PatientsWorkersModule {}
