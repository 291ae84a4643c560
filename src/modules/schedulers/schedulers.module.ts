import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SchedulingModule } from '../scheduling/scheduling.module';
import { SchedulerEntity } from './entities/scheduler.entity';
import { SchedulersController } from './schedulers.controller';
import { SchedulersRepository } from './schedulers.repository';
import { SchedulersService } from './schedulers.service';

/** Schedulers (public booking pages): managed with a key under /schedulers, used without one under /public/schedulers. */
@Module({
  imports: [TypeOrmModule.forFeature([SchedulerEntity]), SchedulingModule],
  controllers: [SchedulersController],
  providers: [SchedulersRepository, SchedulersService],
  exports: [SchedulersService],
})
export class SchedulersModule {}
