import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '../events';
import { PatientsModule } from '../patients';
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
export class SchedulingModule {}
