import { Body, Controller, Get, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Audited } from '../../common/audit/audited.decorator';
import { CurrentAuth } from '../../common/auth/current-auth.decorator';
import { Authenticated } from '../../common/auth/route-policy.decorator';
import type { AuthContext } from '../../common/auth/auth.types';
import { IdParam } from '../../common/http/requests/id-param';
import { Idempotent } from '../../common/idempotency/idempotent.decorator';
import { pageRequest } from '../../common/http/lists/pagination';
import { Accepted, NoStore } from '../../common/http/responses/response-headers';
import { ListSmsMessagesQueryDto, SendSmsDto, SmsMessageDto, SmsMessageListDto, SmsSendAcceptedDto } from './dto/sms-message.dto';
import { SmsMessagesService } from './sms-messages.service';

@ApiTags('SMS')
@NoStore()
@Controller('sms')
export class SmsMessagesController {
  constructor(private readonly messages: SmsMessagesService) {}

  @Post('send')
  @Idempotent()
  @Accepted((accepted: SmsSendAcceptedDto) => ['sms', 'messages', accepted.messageId])
  @Audited('sms_message.send', { resourceType: 'sms_message' })
  @Authenticated({ scope: 'sms:write' })
  @ApiOperation({
    operationId: 'sendSms',
    summary: 'Send an SMS',
    description:
      'To a patient (`patientId`: their phone number) or a bare number (`to`, E.164), from a template (`templateId`) or a text (`body`), rendered with `templateVariables` (the rendered text at most 1,600 characters). Answers 202 at once; a queue worker sends it (SMS_PROVIDER: Twilio, or the log), retrying provider errors and timeouts with backoff, and GET /sms/messages/{messageId} (the Location) follows it, with its segments and encoding. A test-mode key\'s messages never reach the provider (`transport: "test"`). A patient who opted out of SMS (`smsOptOut`, set by you or a STOP reply) gets nothing: the message ends `suppressed`. Only mobile and fixed-line numbers are texted: a premium-rate, shared-cost or other non-personal number (libphonenumber-js, full metadata), a satellite or international network number, or one in no assigned range is 400 naming `to`, or `patientId` for a patient with such a phone.',
  })
  @ApiAcceptedResponse({
    type: SmsSendAcceptedDto,
    headers: { Location: { description: 'The message URL', schema: { type: 'string' } } },
  })
  @ApiBody({
    type: SendSmsDto,
    // One valid combination per example: `patientId` or `to`, `templateId` or `body`.
    examples: {
      text: {
        summary: 'A text to a number',
        value: { to: '+14155552671', body: 'Hello, this is {{practice.name}}: your results are ready.' },
      },
      template: {
        summary: 'A template to a patient',
        value: {
          patientId: '0193a5a8-7f3e-7c1a-9d52-3f0c8e1b2a40',
          templateId: '0193a5b2-7c1e-7d40-9a3e-2f0c1b4d5e6f',
          templateVariables: { appointmentDate: 'Monday 24 November, 09:30' },
        },
      },
    },
  })
  send(@CurrentAuth() auth: AuthContext, @Body() body: SendSmsDto): Promise<SmsSendAcceptedDto> {
    return this.messages.send(auth, body);
  }

  @Get('messages')
  @Audited('sms_message.list', { resourceType: 'sms_message' })
  @Authenticated({ scope: 'sms:read' })
  @ApiOperation({
    operationId: 'listSmsMessages',
    summary: 'List SMS messages, newest first',
    description: 'Filters: patientId, status. Cursor pagination: pass nextCursor as cursor.',
  })
  @ApiOkResponse({ type: SmsMessageListDto })
  list(@CurrentAuth() auth: AuthContext, @Query() query: ListSmsMessagesQueryDto): Promise<SmsMessageListDto> {
    return this.messages.list(auth, query, pageRequest(query));
  }

  @Get('messages/:id')
  @Audited('sms_message.read')
  @Authenticated({ scope: 'sms:read' })
  @ApiOperation({
    operationId: 'getSmsMessage',
    summary: 'Read an SMS message',
    description: 'Its text, segments and encoding, and where its sending and delivery stand.',
  })
  @ApiOkResponse({ type: SmsMessageDto })
  get(@CurrentAuth() auth: AuthContext, @IdParam() id: string): Promise<SmsMessageDto> {
    return this.messages.get(auth, id);
  }
}
