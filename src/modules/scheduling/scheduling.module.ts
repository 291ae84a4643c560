import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppointmentsRepository } from './appointments.repository';
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
  imports: [TypeOrmModule.forFeature([ProviderEntity, TimeOffEntity, AppointmentEntity])],
  controllers: [ProvidersController, AvailabilityController],
  providers: [ProvidersRepository, TimeOffRepository, AppointmentsRepository, ProvidersService, AvailabilityService],
  exports: [ProvidersService, AvailabilityService],
})
export class SchedulingModule {}
