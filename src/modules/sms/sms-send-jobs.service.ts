import { Injectable } from '@nestjs/common';
import { MessageSendJobs } from '../../common/messaging';
import { JobOutbox } from '../../common/queue/job-outbox';
import { JobName } from '../../common/queue/queues';
import { AppConfig } from '../../config/app-config';

/** A text message's send job, tried as the SMS settings say (see MessageSendJobs). */
@Injectable()
export class SmsSendJobs extends MessageSendJobs<JobName.SmsSend> {
  constructor(outbox: JobOutbox, config: AppConfig) {
    super(outbox, JobName.SmsSend, () => config.sms);
  }
}
