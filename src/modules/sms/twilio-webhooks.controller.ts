import { Body, Controller, Headers, HttpCode, Post, Req } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiBody, ApiConsumes, ApiHeader, ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Public } from '../../common/auth/route-policy.decorator';
import { ApiErrors } from '../../common/http/openapi/openapi';
import { apiPath } from '../../common/http/responses/response-headers';
import { SmsStatusService } from './sms-status.service';
import { TWILIO_SIGNED, TwilioSignature } from './twilio-signature';

/** Where Twilio reports a message's status: given as `StatusCallback` with every message sent. */
export const TWILIO_STATUS_PATH = apiPath('public', 'sms', 'twilio', 'status');

const FORM = 'application/x-www-form-urlencoded';

@ApiTags('SMS')
@Controller('public/sms/twilio')
export class TwilioStatusController {
  constructor(
    private readonly signature: TwilioSignature,
    private readonly statuses: SmsStatusService,
  ) {}

  @Post('status')
  @HttpCode(204)
  @Public()
  @RouteConfig({ formBody: 'fields' })
  @ApiOperation({
    operationId: 'receiveTwilioStatus',
    summary: "Twilio's status callback for a message sent",
    description: `Twilio posts a message's later statuses here (its \`StatusCallback\`, set on every message). \`delivered\` makes the message \`delivered\` (\`sms.delivered\`); \`undelivered\` and \`failed\` make it so (\`sms.failed\`, with Twilio's ErrorCode in lastError). Other statuses (queued, sent …) and messages already settled change nothing: a status never moves back from delivered, undelivered or failed. ${TWILIO_SIGNED}`,
  })
  @ApiConsumes(FORM)
  @ApiHeader({ name: 'X-Twilio-Signature', required: true, description: "Twilio's signature of the request" })
  @ApiBody({
    schema: {
      type: 'object',
      properties: { MessageSid: { type: 'string' }, MessageStatus: { type: 'string' }, ErrorCode: { type: 'string' } },
    },
  })
  @ApiNoContentResponse({ description: 'Recorded (or nothing to change)' })
  @ApiErrors('invalid_signature')
  async status(
    @Req() request: FastifyRequest,
    @Headers('x-twilio-signature') signature: string | undefined,
    @Body() fields: Record<string, string> | undefined,
  ): Promise<void> {
    this.signature.verify(request, signature, fields ?? {});
    await this.statuses.apply(fields ?? {});
  }
}
