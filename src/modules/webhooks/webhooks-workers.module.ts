import { Module } from '@nestjs/common';
import { EventsModule } from '../events';
import { EventRelay } from './event-relay.sweep';
import { WebhookDeliverer } from './webhook-delivery.processor';
import { WebhooksModule } from './webhooks.module';

/** The outbox relay and the delivery job handler; imported by WorkersModule. */
@Module({
  imports: [WebhooksModule, EventsModule],
  providers: [EventRelay, WebhookDeliverer],
})
export class WebhooksWorkersModule {}
