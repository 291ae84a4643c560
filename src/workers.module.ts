import { Module } from '@nestjs/common';
import { PatientsWorkersModule } from './modules/patients/patients-workers.module';

/**
 * The queue processors. Imported by the API process unless WORKERS=off, and by dist/worker.js alone.
 * Each domain module that owns jobs adds its processor module here.
 */
@Module({ imports: [PatientsWorkersModule] })
export class WorkersModule {}
