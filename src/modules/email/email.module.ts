import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '../events/events.module';
import { PatientsModule } from '../patients/patients.module';
import { SettingsModule } from '../settings/settings.module';
import { TenantsModule } from '../tenants/tenants.module';
import { TemplatesModule } from '../templates/templates.module';
import { EmailBodyRetention } from './email-body-retention';
import { EmailContexts } from './email-contexts';
import { EmailHeaders } from './email-headers';
import { EmailMessagesController } from './email-messages.controller';
import { EmailMessagesRepository } from './email-messages.repository';
import { EmailMessagesService } from './email-messages.service';
import { EmailSendJobs } from './email-send-jobs';
import { EmailTemplatesController } from './email-templates.controller';
import { EmailTemplatesRepository } from './email-templates.repository';
import { EmailTemplatesService } from './email-templates.service';
import { EmailMessageEntity } from './entities/email-message.entity';
import { EmailTemplateEntity } from './entities/email-template.entity';
import { UnsubscribeController } from './unsubscribe.controller';
import { UnsubscribeTokens } from './unsubscribe-tokens';

/**
 * Email templates, messages and sending. Other modules queue a message with EmailMessagesService.queue
 * (inside their own transaction) and check template ids with EmailTemplatesService. The send worker and
 * the sweep run in EmailWorkersModule.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([EmailTemplateEntity, EmailMessageEntity]),
    PatientsModule,
    TemplatesModule,
    EventsModule,
    SettingsModule,
    TenantsModule,
  ],
  controllers: [EmailTemplatesController, EmailMessagesController, UnsubscribeController],
  providers: [
    EmailTemplatesRepository,
    EmailMessagesRepository,
    EmailTemplatesService,
    EmailMessagesService,
    EmailContexts,
    EmailSendJobs,
    EmailHeaders,
    UnsubscribeTokens,
    EmailBodyRetention,
  ],
  exports: [
    EmailBodyRetention,
    EmailMessagesService,
    EmailTemplatesService,
    EmailMessagesRepository,
    EmailSendJobs,
    EmailHeaders,
    PatientsModule,
    EventsModule,
  ],
})
export class EmailModule {}
