import { Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule, EventsService } from '../events';
import { EncounterReferenceChecks, PatientsModule, patientFor } from '../patients';
import type { PatientDto } from '../patients';
import { AppointmentsController } from './appointments.controller';
import { AppointmentsRepository } from './appointments.repository';
import { AppointmentsService } from './appointments.service';
import { AvailabilityController } from './availability.controller';
import { AvailabilityService } from './availability.service';
import { AppointmentEntity } from './entities/appointment.entity';
import { ProviderEntity } from './entities/provider.entity';
import { TimeOffEntity } from './entities/time-off.entity';
import { ProvidersController } from './providers.controller';
import { ProvidersRepository } from './providers.repository';
import { ProvidersService } from './providers.service';
import { TimeOffRepository } from './time-off.repository';

@Module({
  imports: [TypeOrmModule.forFeature([ProviderEntity, TimeOffEntity, AppointmentEntity]), PatientsModule, EventsModule],
  controllers: [ProvidersController, AvailabilityController, AppointmentsController],
  providers: [ProvidersRepository, TimeOffRepository, AppointmentsRepository, ProvidersService, AvailabilityService, AppointmentsService],
  exports: [ProvidersService, AvailabilityService, AppointmentsService],
})
export class SchedulingModule implements OnModuleInit {
  constructor(
    private readonly encounterReferences: EncounterReferenceChecks,
    private readonly appointments: AppointmentsService,
    private readonly events: EventsService,
  ) {}

  /**
   * Patients checks an encounter's providerId and appointmentId through this module's service; GET /events
   * shows an appointment's patient whole only to a key with patients:read.
   */
  onModuleInit(): void {
    this.events.showAs(['appointment.booked', 'appointment.updated'], (auth, data) => {
      const patient = data.patient as PatientDto | null | undefined;
      return patient && typeof patient === 'object' ? { ...data, patient: patientFor(auth, patient) } : data;
    });
    this.encounterReferences.provide((auth, patientId, references, tx) =>
      this.appointments.encounterReferenceProblems(auth, patientId, references, tx),
    );
  }
}
