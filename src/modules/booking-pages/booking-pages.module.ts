import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PatientsModule } from '../patients';
import { SchedulingModule } from '../scheduling';
import { SmsModule } from '../sms';
import { SchedulerEntity } from './entities/scheduler.entity';
import { PublicBookingCaller } from './public-booking-caller';
import { PublicBookingService } from './public-booking.service';
import { PublicBookingPagesController } from './public-booking-pages.controller';
import { BookingPagesController } from './booking-pages.controller';
import { BookingPagesRepository } from './booking-pages.repository';
import { BookingPagesService } from './booking-pages.service';

/** Booking pages (the API's schedulers): managed with a key under /schedulers, used without one under /public/schedulers. */
@Module({
  imports: [TypeOrmModule.forFeature([SchedulerEntity]), SchedulingModule, PatientsModule, SmsModule],
  controllers: [BookingPagesController, PublicBookingPagesController],
  providers: [BookingPagesRepository, BookingPagesService, PublicBookingService, PublicBookingCaller],
  exports: [BookingPagesService],
})
export class BookingPagesModule {}
