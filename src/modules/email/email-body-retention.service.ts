import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { unscopedSql } from '../../database/sql';

/**
 * Clears the stored bodies of messages sent before EMAIL_BODY_RETENTION_DAYS, across tenants, keeping
 * everything else (recipient, subject, status, times) and recording when (`body_cleared_at`, which GET
 * /emails/messages/{id} shows). Only sent messages: a queued or failed one may still be sent or retried.
 * Each batch is locked with SKIP LOCKED, so several workers sweeping at once never wait on one another.
 */
@Injectable()
export class EmailBodyRetention {
  constructor(private readonly dataSource: DataSource) {}

  /** Clears up to `limit` messages sent before `cutoff`, recording `now`; answers how many. */
  async clearSentBefore(cutoff: Date, now: Date, limit: number): Promise<number> {
    const [, cleared] = await unscopedSql<[unknown, number]>(
      this.dataSource,
      `UPDATE email_messages SET html_body = NULL, text_body = NULL, attachments = NULL, body_cleared_at = $3
        WHERE id IN (SELECT id FROM email_messages
                      WHERE status = 'sent' AND body_cleared_at IS NULL AND sent_at < $1
                      ORDER BY sent_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [cutoff, limit, now],
    );
    return cleared;
  }
}
