import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PatientsModule } from '../patients';
import { SchedulingModule } from '../scheduling';
import { SettingsModule } from '../settings';
import { SmsModule } from '../sms';
import { SchedulerEntity } from './entities/scheduler.entity';
import { BookingPageController } from './booking-page.controller';
import { BookingPageService } from './booking-page.service';
import { PublicBookingCaller } from './public-booking-caller';
import { PublicBookingService } from './public-booking.service';
import { PublicBookingPagesController } from './public-booking-pages.controller';
import { BookingPagesController } from './booking-pages.controller';
import { BookingPagesRepository } from './booking-pages.repository';
import { BookingPagesService } from './booking-pages.service';

/** Booking pages (the API's schedulers): managed with a key under /schedulers, used without one under /public/schedulers. */
@Module({
  imports: [TypeOrmModule.forFeature([SchedulerEntity]), SchedulingModule, PatientsModule, SmsModule, SettingsModule],
  controllers: [BookingPagesController, PublicBookingPagesController, BookingPageController],
  providers: [BookingPagesRepository, BookingPagesService, PublicBookingService, PublicBookingCaller, BookingPageService],
  exports: [BookingPagesService],
})
export class BookingPagesModule {}
