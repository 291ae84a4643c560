import { Injectable } from '@nestjs/common';
import addressparser from 'nodemailer/lib/addressparser';
import { AppConfig } from '../../config/app-config';
import type { EmailMessageEntity } from './entities/email-message.entity';

/** The sender's address and the headers every message carries. */
@Injectable()
export class EmailHeaders {
  /** The bare address of EMAIL_FROM, for MAIL FROM. */
  readonly envelopeFrom: string;
  private readonly domain: string;

  constructor(config: AppConfig) {
    const parsed = addressparser(config.email.from, { flatten: true });
    this.envelopeFrom = parsed[0]?.address || 'no-reply@practice.local';
    this.domain = this.envelopeFrom.split('@')[1] || 'practice.local';
  }

  /** Message-ID from the message id: the same message always carries the same one. */
  messageId(id: string): string {
    return `<${id}@${this.domain}>`;
  }

  /** Extra headers of one message. */
  forMessage(_row: EmailMessageEntity): Record<string, string> {
    return {};
  }
}
