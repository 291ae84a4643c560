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
import { SmsConsent } from './sms-consent.service';
import { SmsMessagesController } from './sms-messages.controller';
import { SmsMessagesRepository } from './sms-messages.repository';
import { SmsMessagesService } from './sms-messages.service';
import { SmsSendJobs } from './sms-send-jobs.service';
import { SmsTemplatesController } from './sms-templates.controller';
import { SmsTemplatesRepository } from './sms-templates.repository';
import { SmsTemplatesService } from './sms-templates.service';
import { SmsStatusService } from './sms-status.service';
import { TwilioSignature } from './twilio-signature';
import { TwilioStatusController } from './twilio-webhooks.controller';

/**
 * SMS templates, messages and Twilio's status callbacks. Its send job runs in MessagingWorkersModule (SmsChannel);
 * texts patients send in are read by SmsInboundModule, above this module and Scheduling.
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
  controllers: [SmsTemplatesController, SmsMessagesController, TwilioStatusController],
  providers: [
    SmsTemplatesRepository,
    SmsTemplatesService,
    SmsMessagesRepository,
    SmsMessagesService,
    SmsSendJobs,
    SmsStatusService,
    SmsConsent,
    TwilioSignature,
  ],
  exports: [
    SmsTemplatesService,
    SmsMessagesService,
    SmsConsent,
    TwilioSignature,
    SmsMessagesRepository,
    SmsSendJobs,
    PatientsModule,
    SettingsModule,
    EventsModule,
  ],
})
export class SmsModule {}
