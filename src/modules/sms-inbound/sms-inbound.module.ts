import { Module } from '@nestjs/common';
import { EventsModule } from '../events';
import { PatientsModule } from '../patients';
import { SchedulingModule } from '../scheduling';
import { SettingsModule } from '../settings';
import { SmsModule } from '../sms';
import { SmsInboundService } from './sms-inbound.service';
import { TwilioInboundController } from './twilio-inbound.controller';

/**
 * Texts patients send to a practice number (Twilio's inbound webhook). A flow across modules, so it sits
 * above them: consent through Patients and SMS, a "C" reply through Scheduling's AppointmentsService.
 */
@Module({
  imports: [SmsModule, SchedulingModule, PatientsModule, SettingsModule, EventsModule],
  controllers: [TwilioInboundController],
  providers: [SmsInboundService],
})
export class SmsInboundModule {}
