import { Body, Controller, Get, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Audited } from '../../common/audit/audited.decorator';
import { CurrentAuth } from '../../common/auth/current-auth.decorator';
import { Authenticated } from '../../common/auth/route-policy.decorator';
import type { AuthContext } from '../../common/auth/auth.types';
import { IdParam } from '../../common/http/id-param';
import { ApiProblemResponses } from '../../common/http/openapi';
import { pageRequest } from '../../common/http/pagination';
import { Accepted, NoStore } from '../../common/http/response-headers';
import { EmailMessageDetailDto, EmailMessageListDto, ListEmailMessagesQueryDto } from './dto/email-message.dto';
import { EmailSendAcceptedDto, SendEmailDto } from './dto/send-email.dto';
import { EmailMessagesService } from './email-messages.service';

@ApiTags('Email')
@NoStore()
@Controller('emails')
export class EmailMessagesController {
  constructor(private readonly messages: EmailMessagesService) {}

  @Post('send')
  @Accepted((accepted: EmailSendAcceptedDto) => ['emails', 'messages', accepted.messageId])
  @Audited('email_message.send', { resourceType: 'email_message' })
  @Authenticated({ scope: 'emails:write' })
  @ApiOperation({
    operationId: 'sendEmail',
    summary: 'Send an email',
    description:
      'To a patient (`patientId`: their address, and an RFC 8058 one-click unsubscribe link) or a bare address (`to`), from a template (`templateId`) or a one-off subject with htmlContent and/or textContent, rendered with `templateVariables`. Answers 202 at once; a queue worker sends it over SMTP (retried with backoff, never twice) and GET /emails/messages/{messageId} (the Location) follows it. A patient who unsubscribed gets no email: the message ends `suppressed`.',
  })
  @ApiAcceptedResponse({
    type: EmailSendAcceptedDto,
    headers: { Location: { description: 'The message URL', schema: { type: 'string' } } },
  })
  @ApiProblemResponses(400)
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
  @ApiProblemResponses(400)
  list(@CurrentAuth() auth: AuthContext, @Query() query: ListEmailMessagesQueryDto): Promise<EmailMessageListDto> {
    return this.messages.list(auth, query, pageRequest(query));
  }

  @Get('messages/:id')
  @Audited('email_message.read')
  @Authenticated({ scope: 'emails:read' })
  @ApiOperation({
    operationId: 'getEmailMessage',
    summary: 'Read an email message',
    description: 'With its rendered content and where its sending stands.',
  })
  @ApiOkResponse({ type: EmailMessageDetailDto })
  @ApiProblemResponses(404)
  get(@CurrentAuth() auth: AuthContext, @IdParam() id: string): Promise<EmailMessageDetailDto> {
    return this.messages.get(auth, id);
  }
}
