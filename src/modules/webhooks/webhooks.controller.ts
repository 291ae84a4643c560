import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { Audited } from '../../common/audit/audited.decorator';
import { CurrentAuth } from '../../common/auth/current-auth.decorator';
import type { AuthContext } from '../../common/auth/auth.types';
import { Authenticated } from '../../common/auth/route-policy.decorator';
import { IdParam } from '../../common/http/requests/id-param';
import { PageQueryDto, pageRequest } from '../../common/http/lists/pagination';
import { Accepted, Created, NoStore } from '../../common/http/responses/response-headers';
import { WebhookDeliveryDto, WebhookDeliveryListDto } from './dto/delivery.dto';
import { CreateWebhookDto, UpdateWebhookDto, WebhookDto, WebhookListDto, WebhookWithSecretDto } from './dto/webhook.dto';
import { WebhooksService } from './webhooks.service';
import { Idempotent } from '../../common/idempotency/idempotent.decorator';

/** These POSTs take no body. */
const NO_BODY = ApiBody({ required: false, description: 'No body', schema: { type: 'object', maxProperties: 0 } });

const READ = { scope: 'webhooks:read' } as const;
const WRITE = { scope: 'webhooks:write', roles: ['OWNER', 'ADMIN'] } as const;

@ApiTags('Webhooks')
@Controller('webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @Idempotent()
  @Created((webhook: WebhookDto) => ['webhooks', webhook.id])
  @NoStore()
  @Authenticated({ ...WRITE, roles: [...WRITE.roles] })
  @Audited('webhook.create')
  @ApiOperation({
    operationId: 'createWebhook',
    summary: 'Register a webhook endpoint; its signing secret is in this response only',
    description:
      'The URL must be https and resolve to public addresses only (checked again at every delivery; redirects are not followed). Deliveries follow the Standard Webhooks specification: `webhook-id` (the event id, the same on every retry), `webhook-timestamp` and `webhook-signature: v1,<base64 HMAC-SHA256>`; the body is `{ type, timestamp, data }`, `data` being the resource as recorded, patients whole (an endpoint is registered by an OWNER or ADMIN, whatever the scopes of the keys that later read events). A delivery that does not answer 2xx within 10 seconds is retried with exponential backoff and jitter for more than 24 hours; after its last attempt fails, the endpoint is disabled.',
  })
  @ApiCreatedResponse({ type: WebhookWithSecretDto })
  create(@CurrentAuth() auth: AuthContext, @Body() body: CreateWebhookDto): Promise<WebhookWithSecretDto> {
    return this.webhooks.create(auth, body);
  }

  @Get()
  @Authenticated(READ)
  @Audited('webhook.list')
  @ApiOperation({ operationId: 'listWebhooks', summary: 'List webhook endpoints, newest first' })
  @ApiOkResponse({ type: WebhookListDto })
  list(@CurrentAuth() auth: AuthContext, @Query() query: PageQueryDto): Promise<WebhookListDto> {
    return this.webhooks.list(auth, pageRequest(query));
  }

  @Get(':id')
  @Authenticated(READ)
  @Audited('webhook.read')
  @ApiOperation({ operationId: 'getWebhook', summary: 'Read a webhook endpoint' })
  @ApiOkResponse({ type: WebhookDto })
  get(@CurrentAuth() auth: AuthContext, @IdParam() id: string): Promise<WebhookDto> {
    return this.webhooks.get(auth, id);
  }

  @Patch(':id')
  @Authenticated({ ...WRITE, roles: [...WRITE.roles] })
  @Audited('webhook.update')
  @ApiOperation({
    operationId: 'updateWebhook',
    summary: 'Change a webhook endpoint',
    description: 'Omitted fields are unchanged. `enabled: true` re-enables an endpoint disabled after failed deliveries.',
  })
  @ApiOkResponse({ type: WebhookDto })
  update(@CurrentAuth() auth: AuthContext, @IdParam() id: string, @Body() body: UpdateWebhookDto): Promise<WebhookDto> {
    return this.webhooks.update(auth, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @Authenticated({ ...WRITE, roles: [...WRITE.roles] })
  @Audited('webhook.delete')
  @ApiOperation({ operationId: 'deleteWebhook', summary: 'Delete a webhook endpoint and its delivery log' })
  @ApiNoContentResponse({ description: 'Deleted' })
  async delete(@CurrentAuth() auth: AuthContext, @IdParam() id: string): Promise<void> {
    await this.webhooks.delete(auth, id);
  }

  @Post(':id/rotate-secret')
  @Idempotent()
  @NO_BODY
  @HttpCode(200)
  @NoStore()
  @Authenticated({ ...WRITE, roles: [...WRITE.roles] })
  @Audited('webhook.rotate_secret')
  @ApiOperation({
    operationId: 'rotateWebhookSecret',
    summary: 'Replace the signing secret; the new one is in this response only',
    description: 'For 24 hours deliveries carry a signature by the old secret too, so receivers can switch over without dropping any.',
  })
  @ApiOkResponse({ type: WebhookWithSecretDto })
  rotateSecret(@CurrentAuth() auth: AuthContext, @IdParam() id: string): Promise<WebhookWithSecretDto> {
    return this.webhooks.rotateSecret(auth, id);
  }

  @Post(':id/test')
  @Idempotent()
  @NO_BODY
  @Accepted(() => undefined) // the attempt shows in GET /webhooks/{id}/deliveries
  @Authenticated({ ...WRITE, roles: [...WRITE.roles] })
  @Audited('webhook.test')
  @ApiOperation({ operationId: 'testWebhook', summary: 'Send a webhook.test event to this endpoint (one attempt, queued)' })
  @ApiAcceptedResponse({ type: WebhookDeliveryDto })
  sendTest(@CurrentAuth() auth: AuthContext, @IdParam() id: string): Promise<WebhookDeliveryDto> {
    return this.webhooks.sendTest(auth, id);
  }

  @Get(':id/deliveries')
  @Authenticated(READ)
  @Audited('webhook.deliveries')
  @ApiOperation({
    operationId: 'listWebhookDeliveries',
    summary: "The endpoint's deliveries, newest first, each with every attempt",
    description:
      "Each names its event (`eventId`, `eventType`) without its data, which `GET /events/{id}` shows as the key's scopes allow; an attempt keeps the first 1 KiB of the receiver's answer.",
  })
  @ApiOkResponse({ type: WebhookDeliveryListDto })
  deliveries(@CurrentAuth() auth: AuthContext, @IdParam() id: string, @Query() query: PageQueryDto): Promise<WebhookDeliveryListDto> {
    return this.webhooks.deliveriesOf(auth, id, pageRequest(query));
  }

  @Post(':id/deliveries/:deliveryId/retry')
  @Idempotent()
  @NO_BODY
  @Accepted(() => undefined) // the attempt shows in GET /webhooks/{id}/deliveries
  @Authenticated({ ...WRITE, roles: [...WRITE.roles] })
  @Audited('webhook.retry')
  @ApiOperation({
    operationId: 'retryWebhookDelivery',
    summary: 'Attempt a delivery once more, now',
    description: 'Works on failed and succeeded deliveries too; a failed manual retry does not disable the endpoint.',
  })
  @ApiAcceptedResponse({ type: WebhookDeliveryDto })
  retry(@CurrentAuth() auth: AuthContext, @IdParam() id: string, @IdParam('deliveryId') deliveryId: string): Promise<WebhookDeliveryDto> {
    return this.webhooks.retry(auth, id, deliveryId);
  }
}
