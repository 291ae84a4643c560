import { Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EmailModule } from '../email';
import { EVENT_TYPES, EventsModule, EventsService } from '../events';
import { EncounterReferenceChecks, PatientsModule, patientFor } from '../patients';
import type { PatientDto } from '../patients';
import { SettingsModule } from '../settings';
import { SmsConfirmations, SmsModule } from '../sms';
import { TenantsModule } from '../tenants';
import { AppointmentTypesController } from './appointment-types.controller';
import { AppointmentTypesRepository } from './appointment-types.repository';
import { AppointmentTypesService } from './appointment-types.service';
import { AppointmentsController } from './appointments.controller';
import { AppointmentsRepository } from './appointments.repository';
import { AppointmentsService } from './appointments.service';
import { AvailabilityController } from './availability.controller';
import { AvailabilityService } from './availability.service';
import { AppointmentTypeEntity } from './entities/appointment-type.entity';
import { AppointmentReminderEntity } from './entities/appointment-reminder.entity';
import { AppointmentEntity } from './entities/appointment.entity';
import { ProviderEntity } from './entities/provider.entity';
import { TimeOffEntity } from './entities/time-off.entity';
import { ManageTokens } from './manage-tokens';
import { PublicAppointmentsController } from './public-appointments.controller';
import { SelfServiceService } from './self-service.service';
import { ProvidersController } from './providers.controller';
import { ProvidersRepository } from './providers.repository';
import { ProvidersService } from './providers.service';
import { RemindersRepository } from './reminders.repository';
import { RemindersService } from './reminders.service';
import { TimeOffRepository } from './time-off.repository';

@Module({
  imports: [
    TypeOrmModule.forFeature([ProviderEntity, TimeOffEntity, AppointmentEntity, AppointmentTypeEntity, AppointmentReminderEntity]),
    PatientsModule,
    EventsModule,
    EmailModule,
    SmsModule,
    SettingsModule,
    TenantsModule,
  ],
  controllers: [
    ProvidersController,
    AppointmentTypesController,
    AvailabilityController,
    AppointmentsController,
    PublicAppointmentsController,
  ],
  providers: [
    ProvidersRepository,
    TimeOffRepository,
    AppointmentsRepository,
    AppointmentTypesRepository,
    ProvidersService,
    AppointmentTypesService,
    AvailabilityService,
    AppointmentsService,
    ManageTokens,
    SelfServiceService,
    RemindersRepository,
    RemindersService,
  ],
  exports: [
    ProvidersService,
    AppointmentTypesService,
    AvailabilityService,
    AppointmentsService,
    ManageTokens,
    // For the reminder job's handler (SchedulingWorkersModule).
    AppointmentsRepository,
    ProvidersRepository,
    RemindersRepository,
  ],
})
export class SchedulingModule implements OnModuleInit {
  constructor(
    private readonly encounterReferences: EncounterReferenceChecks,
    private readonly appointments: AppointmentsService,
    private readonly events: EventsService,
    private readonly smsConfirmations: SmsConfirmations,
  ) {}

  /**
   * Patients checks an encounter's providerId and appointmentId, and SMS confirms on a "C" reply, through this
   * module's service without importing it; GET /events shows an appointment's patient whole only to a key
   * with patients:read, in every appointment event (each embeds the appointment's patient).
   */
  onModuleInit(): void {
    this.events.showAs(
      EVENT_TYPES.filter((type) => type.startsWith('appointment.')),
      (auth, data) => {
        const patient = data.patient as PatientDto | null | undefined;
        return patient && typeof patient === 'object' ? { ...data, patient: patientFor(auth, patient) } : data;
      },
    );
    this.smsConfirmations.provide(
      async (scope, patientId, withinMs) => (await this.appointments.confirmNext(scope, patientId, withinMs)) !== null,
    );
    this.encounterReferences.provide((auth, patientId, references, tx) =>
      this.appointments.encounterReferenceProblems(auth, patientId, references, tx),
    );
  }
}
