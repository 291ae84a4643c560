import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '../events';
import { WebhookAttemptEntity } from './entities/webhook-attempt.entity';
import { WebhookDeliveryEntity } from './entities/webhook-delivery.entity';
import { WebhookEndpointEntity } from './entities/webhook-endpoint.entity';
import { OutboxRelayRepository } from './outbox-relay.repository';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookDeliveryJobs } from './webhook-delivery-jobs.service';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';

/** Webhook endpoints, their deliveries and the API over them. The relay and the sender run in WebhooksWorkersModule. */
@Module({
  imports: [TypeOrmModule.forFeature([WebhookEndpointEntity, WebhookDeliveryEntity, WebhookAttemptEntity]), EventsModule],
  controllers: [WebhooksController],
  providers: [WebhooksService, WebhookEndpointsRepository, WebhookDeliveriesRepository, WebhookDeliveryJobs, OutboxRelayRepository],
  exports: [WebhookEndpointsRepository, WebhookDeliveriesRepository, WebhookDeliveryJobs, OutboxRelayRepository],
})
export class WebhooksModule {}
