import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EmailModule } from '../email';
import { EventsModule } from '../events';
import { PatientsModule } from '../patients';
import { SettingsModule } from '../settings';
import { SmsModule } from '../sms';
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
export class SchedulingModule {}
