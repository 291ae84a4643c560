import { Injectable } from '@nestjs/common';
import addressparser from 'nodemailer/lib/addressparser';
import { AppConfig } from '../../config/app-config';
import type { EmailMessageEntity } from './entities/email-message.entity';
import { UnsubscribeTokens } from './unsubscribe-tokens.service';

/** The sender's address and the headers every message carries. */
@Injectable()
export class EmailHeaders {
  /** The bare address of EMAIL_FROM, for MAIL FROM. */
  readonly envelopeFrom: string;
  private readonly domain: string;

  constructor(
    config: AppConfig,
    private readonly unsubscribe: UnsubscribeTokens,
  ) {
    const parsed = addressparser(config.email.from, { flatten: true });
    this.envelopeFrom = parsed[0]?.address || 'no-reply@practice.local';
    this.domain = this.envelopeFrom.split('@')[1] || 'practice.local';
  }

  /** Message-ID from the message id: the same message always carries the same one. */
  messageId(id: string): string {
    return `<${id}@${this.domain}>`;
  }

  /**
   * Extra headers of one message. A message to a patient carries RFC 8058 one-click unsubscribe: mail
   * clients show an "Unsubscribe" button that POSTs `List-Unsubscribe=One-Click` to the https link, and
   * RFC 2369 asks for the link in angle brackets. A message to a bare address has no patient to opt out.
   */
  forMessage(row: EmailMessageEntity): Record<string, string> {
    if (!row.patientId) return {};
    const url = this.unsubscribe.url({ tenantId: row.tenantId, mode: row.mode, patientId: row.patientId });
    return { 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
  }
}
