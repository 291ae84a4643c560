import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EmailModule } from '../email';
import { EventsModule } from '../events';
import { MessagingModule } from '../messaging';
import { PatientsModule } from '../patients';
import { SettingsModule } from '../settings';
import { SmsModule } from '../sms';
import { AppointmentTypesController } from './appointment-types/appointment-types.controller';
import { AppointmentTypesRepository } from './appointment-types/appointment-types.repository';
import { AppointmentTypesService } from './appointment-types/appointment-types.service';
import { AppointmentsController } from './appointments/appointments.controller';
import { AppointmentsRepository } from './appointments/appointments.repository';
import { AppointmentsService } from './appointments/appointments.service';
import { AvailabilityController } from './availability/availability.controller';
import { AvailabilityService } from './availability/availability.service';
import { AppointmentTypeEntity } from './appointment-types/entities/appointment-type.entity';
import { AppointmentReminderEntity } from './reminders/entities/appointment-reminder.entity';
import { AppointmentEntity } from './appointments/entities/appointment.entity';
import { ProviderEntity } from './providers/entities/provider.entity';
import { TimeOffEntity } from './providers/entities/time-off.entity';
import { ManageTokens } from './self-service/manage-tokens';
import { BookingNotices } from './notices/booking-notices.service';
import { PublicAppointmentsController } from './self-service/public-appointments.controller';
import { SelfServiceService } from './self-service/self-service.service';
import { ProvidersController } from './providers/providers.controller';
import { ProvidersRepository } from './providers/providers.repository';
import { ProvidersService } from './providers/providers.service';
import { RemindersRepository } from './reminders/reminders.repository';
import { RemindersService } from './reminders/reminders.service';
import { TimeOffRepository } from './providers/time-off.repository';
import { HoldEntity } from './holds/entities/hold.entity';
import { ProviderTimeClaimEntity } from './holds/entities/provider-time-claim.entity';
import { HoldsController } from './holds/holds.controller';
import { HoldsRepository } from './holds/holds.repository';
import { HoldsService } from './holds/holds.service';
import { AppointmentSeriesEntity } from './series/entities/appointment-series.entity';
import { SeriesController } from './series/series.controller';
import { SeriesRepository } from './series/series.repository';
import { SeriesService } from './series/series.service';
import { WaitlistEntryEntity } from './waitlist/entities/waitlist-entry.entity';
import { WaitlistOfferEntity } from './waitlist/entities/waitlist-offer.entity';
import { PublicWaitlistOffersController } from './waitlist/public-waitlist-offers.controller';
import { TimeFreed } from './waitlist/time-freed';
import { WaitlistController } from './waitlist/waitlist.controller';
import { WaitlistOffers } from './waitlist/waitlist-offers.service';
import { WaitlistEntriesRepository, WaitlistOffersRepository } from './waitlist/waitlist.repository';
import { WaitlistService } from './waitlist/waitlist.service';

@Module({
  imports: [
    TypeOrmModule.forFeature([
      ProviderEntity,
      TimeOffEntity,
      AppointmentEntity,
      AppointmentTypeEntity,
      AppointmentReminderEntity,
      HoldEntity,
      ProviderTimeClaimEntity,
      AppointmentSeriesEntity,
      WaitlistEntryEntity,
      WaitlistOfferEntity,
    ]),
    PatientsModule,
    EventsModule,
    EmailModule,
    SmsModule,
    SettingsModule,
    MessagingModule,
  ],
  controllers: [
    ProvidersController,
    AppointmentTypesController,
    AvailabilityController,
    AppointmentsController,
    HoldsController,
    WaitlistController,
    PublicAppointmentsController,
    SeriesController,
    PublicWaitlistOffersController,
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
    BookingNotices,
    HoldsRepository,
    HoldsService,
    SeriesRepository,
    SeriesService,
    TimeFreed,
    WaitlistEntriesRepository,
    WaitlistOffersRepository,
    WaitlistOffers,
    WaitlistService,
  ],
  exports: [
    ProvidersService,
    AppointmentTypesService,
    AvailabilityService,
    AppointmentsService,
    HoldsService,
    ManageTokens,
    // For the reminder, hold expiry and waitlist jobs' handlers (SchedulingWorkersModule).
    WaitlistOffers,
    AppointmentsRepository,
    ProvidersRepository,
    RemindersRepository,
    HoldsRepository,
  ],
})
export class SchedulingModule {}
