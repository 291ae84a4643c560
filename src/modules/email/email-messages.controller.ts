import { Body, Controller, Get, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Audited } from '../../common/audit/audited.decorator';
import { CurrentAuth } from '../../common/auth/current-auth.decorator';
import { Authenticated } from '../../common/auth/route-policy.decorator';
import type { AuthContext } from '../../common/auth/auth.types';
import { IdParam } from '../../common/http/requests/id-param';
import { pageRequest } from '../../common/http/lists/pagination';
import { Accepted, NoStore } from '../../common/http/responses/response-headers';
import { EmailMessageDetailDto, EmailMessageListDto, ListEmailMessagesQueryDto } from './dto/email-message.dto';
import { EmailSendAcceptedDto, SendEmailDto } from './dto/send-email.dto';
import { EmailMessagesService } from './email-messages.service';
import { Idempotent } from '../../common/idempotency/idempotent.decorator';

@ApiTags('Email')
@NoStore()
@Controller('emails')
export class EmailMessagesController {
  constructor(private readonly messages: EmailMessagesService) {}

  @Post('send')
  @Idempotent()
  @Accepted((accepted: EmailSendAcceptedDto) => ['emails', 'messages', accepted.messageId])
  @Audited('email_message.send', { resourceType: 'email_message' })
  @Authenticated({ scope: 'emails:write' })
  @ApiOperation({
    operationId: 'sendEmail',
    summary: 'Send an email',
    description:
      'To a patient (`patientId`: their address, and an RFC 8058 one-click unsubscribe link) or a bare address (`to`), from a template (`templateId`) or a one-off subject with htmlContent and/or textContent, rendered with `templateVariables`. Answers 202 at once; a queue worker sends it over SMTP (retried with backoff; never lost; sent twice only when a worker dies between the relay accepting it and recording that) and GET /emails/messages/{messageId} (the Location) follows it. A patient who unsubscribed gets no email: the message ends `suppressed`.',
  })
  @ApiAcceptedResponse({
    type: EmailSendAcceptedDto,
    headers: { Location: { description: 'The message URL', schema: { type: 'string' } } },
  })
  @ApiBody({
    type: SendEmailDto,
    // One valid combination per example: `patientId` or `to`, `templateId` or a subject with content. The first,
    // which Swagger UI pre-fills, names no record.
    examples: {
      content: {
        summary: 'Subject and content to an address',
        value: { to: 'ada@example.com', subject: 'Your results are ready', textContent: 'Hello Ada, your results are ready.' },
      },
      template: {
        summary: 'A template to a patient',
        value: {
          patientId: '0193a5a8-7f3e-7c1a-9d52-3f0c8e1b2a40',
          templateId: '0193a5a9-1b2c-7d3e-8f40-5a6b7c8d9e0f',
          templateVariables: { appointmentDate: 'Monday 24 November, 09:30' },
        },
      },
    },
  })
  send(@CurrentAuth() auth: AuthContext, @Body() body: SendEmailDto): Promise<EmailSendAcceptedDto> {
    return this.messages.send(auth, body);
  }

  @Get('messages')
  @Audited('email_message.list', { resourceType: 'email_message' })
  @Authenticated({ scope: 'emails:read' })
  @ApiOperation({
    operationId: 'listEmailMessages',
    summary: 'List email messages, newest first',
    description: 'Filters: patientId, status, sequenceId. Cursor pagination: pass nextCursor as cursor.',
  })
  @ApiOkResponse({ type: EmailMessageListDto })
  list(@CurrentAuth() auth: AuthContext, @Query() query: ListEmailMessagesQueryDto): Promise<EmailMessageListDto> {
    return this.messages.list(auth, query, pageRequest(query));
  }

  @Get('messages/:id')
  @Audited('email_message.read')
  @Authenticated({ scope: 'emails:read' })
  @ApiOperation({
    operationId: 'getEmailMessage',
    summary: 'Read an email message',
    description:
      'With its rendered content and where its sending stands. A sent message keeps its rendered bodies for EMAIL_BODY_RETENTION_DAYS (default 30) after `sentAt`; after that `htmlContent` and `textContent` are null, `bodyClearedAt` says when they were cleared, and everything else (recipient, subject, status, times) stays.',
  })
  @ApiOkResponse({ type: EmailMessageDetailDto })
  get(@CurrentAuth() auth: AuthContext, @IdParam() id: string): Promise<EmailMessageDetailDto> {
    return this.messages.get(auth, id);
  }
}
