import { Body, Controller, Headers, HttpCode, Post, Req, Res } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiBody, ApiConsumes, ApiHeader, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Audited, auditAs } from '../../common/audit/audited.decorator';
import { Public } from '../../common/auth/route-policy.decorator';
import { ApiErrors } from '../../common/http/openapi/openapi';
import { TWILIO_SIGNED, TwilioSignature } from '../sms';
import { SmsInboundService } from './sms-inbound.service';

const FORM = 'application/x-www-form-urlencoded';

/** Where the practice points its Twilio number's "A message comes in" webhook. */
@ApiTags('SMS')
@Controller('public/sms/twilio')
export class TwilioInboundController {
  constructor(
    private readonly signature: TwilioSignature,
    private readonly inbound: SmsInboundService,
  ) {}

  @Post('inbound')
  @HttpCode(200)
  @Public()
  @Audited('patient.sms_consent', { resourceType: 'patient' })
  @RouteConfig({ formBody: 'fields' })
  @ApiOperation({
    operationId: 'receiveTwilioInbound',
    summary: 'A text a patient sent to a practice number (Twilio)',
    description: `Set as the "A message comes in" webhook of the Twilio number. Live mode only. \`STOP\`, \`STOPALL\`, \`UNSUBSCRIBE\`, \`CANCEL\`, \`END\` or \`QUIT\` opts the sending phone out of SMS for every practice that sends from the number it was sent to (its patients show \`smsOptOut: true\`; \`patient.updated\` and \`sms.opted_out\`; later sends end \`suppressed\`); \`START\`, \`YES\` or \`UNSTOP\` opts it back in; \`HELP\` is answered with a TwiML message naming the practice; \`C\` or \`CONFIRM\` confirms that patient's next scheduled appointment starting within 48 hours. Each consent change is audited (\`patient.sms_consent\`). Answers TwiML (\`text/xml\`), empty but for HELP and CONFIRM. ${TWILIO_SIGNED}`,
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
    this.signature.verify(request, signature, fields ?? {});
    const outcome = await this.inbound.receive(fields ?? {});
    for (const change of outcome.consentChanges) auditAs(request, change.scope, change.patientId);
    void reply.type('text/xml; charset=utf-8');
    return twiml(outcome.reply);
  }
}

/** A TwiML answer: one message back to the sender, or none. */
function twiml(message: string | null): string {
  const escaped = message?.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<?xml version="1.0" encoding="UTF-8"?><Response>${escaped ? `<Message>${escaped}</Message>` : ''}</Response>`;
}
