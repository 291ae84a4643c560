import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventEntity } from './entities/event.entity';
import { EventsController } from './events.controller';
import { EventsRepository } from './events.repository';
import { EventsRetention } from './events-retention.service';
import { EventsService } from './events.service';

/** The events outbox and GET /events. Domain modules import it and record events through EventsService. */
@Module({
  imports: [TypeOrmModule.forFeature([EventEntity])],
  controllers: [EventsController],
  providers: [EventsRepository, EventsService, EventsRetention],
  exports: [EventsService, EventsRetention],
})
export class EventsModule {}
