import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '../events';
import { PatientsModule } from '../patients';
import { SettingsModule } from '../settings';
import { TemplatesModule } from '../templates';
import { TenantsModule } from '../tenants';
import { SmsNumbersModule } from '../sms-numbers';
import { SmsMessageEntity } from './entities/sms-message.entity';
import { SmsOptOutEntity } from './entities/sms-opt-out.entity';
import { SmsTemplateEntity } from './entities/sms-template.entity';
import { SmsConfirmations } from './sms-confirmations';
import { SmsConsent } from './sms-consent.service';
import { SmsInboundService } from './sms-inbound.service';
import { SmsMessagesController } from './sms-messages.controller';
import { SmsMessagesRepository } from './sms-messages.repository';
import { SmsMessagesService } from './sms-messages.service';
import { SmsSendJobs } from './sms-send-jobs.service';
import { SmsTemplatesController } from './sms-templates.controller';
import { SmsTemplatesRepository } from './sms-templates.repository';
import { SmsTemplatesService } from './sms-templates.service';
import { TwilioWebhooksController } from './twilio-webhooks.controller';

/**
 * SMS templates, messages and sending, and Twilio's callbacks. Other modules queue a message with
 * SmsMessagesService.queue (inside their own transaction). Its send job runs in MessagingWorkersModule (SmsChannel).
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([SmsTemplateEntity, SmsMessageEntity, SmsOptOutEntity]),
    SmsNumbersModule,
    TemplatesModule,
    PatientsModule,
    SettingsModule,
    TenantsModule,
    EventsModule,
  ],
  controllers: [SmsTemplatesController, SmsMessagesController, TwilioWebhooksController],
  providers: [
    SmsTemplatesRepository,
    SmsTemplatesService,
    SmsMessagesRepository,
    SmsMessagesService,
    SmsSendJobs,
    SmsInboundService,
    SmsConfirmations,
    SmsConsent,
  ],
  exports: [
    SmsTemplatesService,
    SmsMessagesService,
    SmsConfirmations,
    SmsConsent,
    SmsMessagesRepository,
    SmsSendJobs,
    PatientsModule,
    SettingsModule,
    EventsModule,
  ],
})
export class SmsModule {}
