// What other modules may use of webhooks: the Nest modules.
export { WebhooksModule } from './webhooks.module';
export { WebhooksWorkersModule } from './webhooks-workers.module';
