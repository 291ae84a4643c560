import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PatientsModule } from '../patients';
import { SchedulingModule } from '../scheduling';
import { SchedulerEntity } from './entities/scheduler.entity';
import { PublicBookingService } from './public-booking.service';
import { PublicSchedulersController } from './public-schedulers.controller';
import { SchedulersController } from './schedulers.controller';
import { SchedulersRepository } from './schedulers.repository';
import { SchedulersService } from './schedulers.service';

/** Schedulers (public booking pages): managed with a key under /schedulers, used without one under /public/schedulers. */
@Module({
  imports: [TypeOrmModule.forFeature([SchedulerEntity]), SchedulingModule, PatientsModule],
  controllers: [SchedulersController, PublicSchedulersController],
  providers: [SchedulersRepository, SchedulersService, PublicBookingService],
  exports: [SchedulersService],
})
export class SchedulersModule {}
