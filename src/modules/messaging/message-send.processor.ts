import { Injectable } from '@nestjs/common';
import type { Job } from 'bullmq';
import { MessageSender, MessageSendPayload } from '../../common/messaging';
import { OnJob, OnJobFailed } from '../../common/queue/job-handler';
import { JobName } from '../../common/queue/queues';
import { EmailChannel } from '../email';
import { SmsChannel } from '../sms';

/**
 * The send jobs of both channel queues (`email-sends`, `sms-sends`): one message per job, each handed to the one
 * sender with its channel. BullMQ giving up on a job (attempts used up, or it stalled too often) ends the
 * message failed.
 */
@Injectable()
export class MessageSendProcessor {
  constructor(
    private readonly sender: MessageSender,
    private readonly email: EmailChannel,
    private readonly sms: SmsChannel,
  ) {}

  @OnJob(JobName.EmailSend)
  sendEmail(job: Job<MessageSendPayload>): Promise<void> {
    return this.sender.run(this.email, job);
  }

  @OnJob(JobName.SmsSend)
  sendSms(job: Job<MessageSendPayload>): Promise<void> {
    return this.sender.run(this.sms, job);
  }

  @OnJobFailed(JobName.EmailSend)
  emailGivenUp(payload: MessageSendPayload, _jobId: string, reason: string): Promise<void> {
    return this.sender.giveUp(this.email, payload, reason);
  }

  @OnJobFailed(JobName.SmsSend)
  smsGivenUp(payload: MessageSendPayload, _jobId: string, reason: string): Promise<void> {
    return this.sender.giveUp(this.sms, payload, reason);
  }
}
