import { Injectable } from '@nestjs/common';
import { MessageSendJobs } from '../../common/messaging';
import { JobOutbox } from '../../common/queue/job-outbox';
import { JobName } from '../../common/queue/queues';
import { AppConfig } from '../../config/app-config';

/** An email's send job, tried as EMAIL_MAX_ATTEMPTS and EMAIL_RETRY_BASE_MS say (see MessageSendJobs). */
@Injectable()
export class EmailSendJobs extends MessageSendJobs<JobName.EmailSend> {
  constructor(outbox: JobOutbox, config: AppConfig) {
    super(outbox, JobName.EmailSend, () => config.email);
  }
}
