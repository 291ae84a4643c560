import { Body, Controller, Headers, HttpCode, Post, Req, Res } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiBody, ApiConsumes, ApiHeader, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import twilio from 'twilio';
import { Audited, auditAs } from '../../common/audit/audited.decorator';
import { Public } from '../../common/auth/route-policy.decorator';
import { ApiErrors } from '../../common/http/openapi';
import { problemOf } from '../../common/http/problem';
import { apiPath } from '../../common/http/response-headers';
import { AppConfig } from '../../config/app-config';
import { SmsInboundService } from './sms-inbound.service';

/** Where Twilio reports a message's status: given as `StatusCallback` with every message sent. */
export const TWILIO_STATUS_PATH = apiPath('public', 'sms', 'twilio', 'status');
/** Where the practice points its Twilio number's "A message comes in" webhook. */
export const TWILIO_INBOUND_PATH = apiPath('public', 'sms', 'twilio', 'inbound');

const FORM = 'application/x-www-form-urlencoded';
const SIGNED =
  'No API key: Twilio signs each request (`X-Twilio-Signature`, HMAC-SHA1 of PUBLIC_URL + this path and the form fields under TWILIO_AUTH_TOKEN), checked with the `twilio` package; a missing or bad signature is 403 `invalid_signature`. Limited per client IP like every public route.';

@ApiTags('SMS')
@Controller('public/sms/twilio')
export class TwilioWebhooksController {
  constructor(
    private readonly config: AppConfig,
    private readonly inbound: SmsInboundService,
  ) {}

  @Post('status')
  @HttpCode(204)
  @Public()
  @RouteConfig({ formBody: 'fields' })
  @ApiOperation({
    operationId: 'receiveTwilioStatus',
    summary: "Twilio's status callback for a message sent",
    description: `Twilio posts a message's later statuses here (its \`StatusCallback\`, set on every message). \`delivered\` makes the message \`delivered\` (\`sms.delivered\`); \`undelivered\` and \`failed\` make it so (\`sms.failed\`, with Twilio's ErrorCode in lastError). Other statuses (queued, sent …) and messages already settled change nothing: a status never moves back from delivered, undelivered or failed. ${SIGNED}`,
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
    this.verify(request, signature, fields ?? {});
    await this.inbound.status(fields ?? {});
  }

  @Post('inbound')
  @HttpCode(200)
  @Public()
  @Audited('patient.sms_consent', { resourceType: 'patient' })
  @RouteConfig({ formBody: 'fields' })
  @ApiOperation({
    operationId: 'receiveTwilioInbound',
    summary: 'A text a patient sent to a practice number (Twilio)',
    description: `Set as the "A message comes in" webhook of the Twilio number. Live mode only. \`STOP\`, \`STOPALL\`, \`UNSUBSCRIBE\`, \`CANCEL\`, \`END\` or \`QUIT\` opts the sending phone out of SMS for every practice that sends from the number it was sent to (its patients show \`smsOptOut: true\`; \`patient.updated\` and \`sms.opted_out\`; later sends end \`suppressed\`); \`START\`, \`YES\` or \`UNSTOP\` opts it back in; \`HELP\` is answered with a TwiML message naming the practice; \`C\` or \`CONFIRM\` confirms that patient's next scheduled appointment starting within 48 hours. Each consent change is audited (\`patient.sms_consent\`). Answers TwiML (\`text/xml\`), empty but for HELP and CONFIRM. ${SIGNED}`,
  })
  @ApiConsumes(FORM)
  @ApiHeader({ name: 'X-Twilio-Signature', required: true, description: "Twilio's signature of the request" })
  @ApiBody({ schema: { type: 'object', properties: { From: { type: 'string' }, To: { type: 'string' }, Body: { type: 'string' } } } })
  @ApiProduces('text/xml')
  @ApiOkResponse({ description: 'TwiML', content: { 'text/xml': { schema: { type: 'string' } } } })
  @ApiErrors('invalid_signature')
  async receive(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Headers('x-twilio-signature') signature: string | undefined,
    @Body() fields: Record<string, string> | undefined,
  ): Promise<string> {
    this.verify(request, signature, fields ?? {});
    const outcome = await this.inbound.receive(fields ?? {});
    for (const change of outcome.consentChanges) auditAs(request, change.scope, change.patientId);
    void reply.type('text/xml; charset=utf-8');
    return twiml(outcome.reply);
  }

  /**
   * Twilio signs the URL it called (our PUBLIC_URL, the path and any query) and the form fields. Without
   * an auth token nothing can be verified, so nothing is accepted.
   */
  private verify(request: FastifyRequest, signature: string | undefined, fields: Record<string, string>): void {
    const token = this.config.sms.twilio?.authToken;
    const url = `${this.config.http.publicUrl}${request.url}`;
    if (!token || !signature || !twilio.validateRequest(token, signature, url, fields)) {
      throw problemOf('invalid_signature', 'The request does not carry a valid X-Twilio-Signature');
    }
  }
}

/** A TwiML answer: one message back to the sender, or none. */
function twiml(message: string | null): string {
  const escaped = message?.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<?xml version="1.0" encoding="UTF-8"?><Response>${escaped ? `<Message>${escaped}</Message>` : ''}</Response>`;
}
