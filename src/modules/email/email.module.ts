import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '../events';
import { PatientsModule } from '../patients';
import { SettingsModule } from '../settings';
import { TemplatesModule } from '../templates';
import { EmailBodyRetention } from './email-body-retention.service';
import { EmailHeaders } from './email-headers.service';
import { EmailMessagesController } from './email-messages.controller';
import { EmailMessagesRepository } from './email-messages.repository';
import { EmailMessagesService } from './email-messages.service';
import { EmailSendJobs } from './email-send-jobs.service';
import { EmailTemplatesController } from './email-templates.controller';
import { EmailTemplatesRepository } from './email-templates.repository';
import { EmailTemplatesService } from './email-templates.service';
import { EmailMessageEntity } from './entities/email-message.entity';
import { EmailTemplateEntity } from './entities/email-template.entity';
import { UnsubscribeController } from './unsubscribe.controller';
import { UnsubscribeTokens } from './unsubscribe-tokens.service';

/**
 * Email templates, messages and sending. Other modules queue a message with EmailMessagesService.queue
 * (inside their own transaction) and check template ids with EmailTemplatesService. The send job's
 * handler runs in MessagingWorkersModule (EmailChannel).
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([EmailTemplateEntity, EmailMessageEntity]),
    PatientsModule,
    TemplatesModule,
    EventsModule,
    SettingsModule,
  ],
  controllers: [EmailTemplatesController, EmailMessagesController, UnsubscribeController],
  providers: [
    EmailTemplatesRepository,
    EmailMessagesRepository,
    EmailTemplatesService,
    EmailMessagesService,
    EmailSendJobs,
    EmailHeaders,
    UnsubscribeTokens,
    EmailBodyRetention,
  ],
  exports: [EmailMessagesService, EmailTemplatesService, EmailMessagesRepository, EmailSendJobs, EmailHeaders, EmailBodyRetention],
})
export class EmailModule {}
