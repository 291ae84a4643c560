import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { clock } from '../../common/time/clock';
import { TenantScope } from '../../database/tenant-owned.entity';
import { lastError, MessageKind, OutgoingMessagesRepository } from '../../common/messaging';
import { SmsMessageEntity, SmsStatus, SmsTransportName } from './entities/sms-message.entity';
import type { SmsEncoding } from './sms-segments';

/** A message as queued: rendered and addressed. `suppressed` carries the reason it will not be sent. */
export interface NewSmsMessage {
  kind: MessageKind;
  appointmentId: string | null;
  patientId: string | null;
  templateId: string | null;
  toNumber: string;
  body: string;
  segments: number;
  encoding: SmsEncoding;
  suppressed?: string;
}

/** The statuses a provider's status callback may set. */
export type ProviderOutcome = Extract<SmsStatus, 'delivered' | 'undelivered' | 'failed'>;

/** Text messages and the status changes of their sending (see OutgoingMessagesRepository). */
@Injectable()
export class SmsMessagesRepository extends OutgoingMessagesRepository<SmsMessageEntity> {
  constructor(@InjectRepository(SmsMessageEntity) repository: Repository<SmsMessageEntity>) {
    super(repository);
  }

  async insertQueued(scope: TenantScope, values: NewSmsMessage, tx: EntityManager): Promise<SmsMessageEntity> {
    const { suppressed, ...rest } = values;
    return this.insert(scope, { ...rest, status: suppressed ? 'suppressed' : 'queued', lastError: suppressed ?? null, attempts: 0 }, tx);
  }

  /**
   * Takes a message for one try: queued → sending, or sending again for the re-run of a job whose worker
   * died mid-try (BullMQ's job lock keeps a live worker's message from being taken over), in one committed
   * statement before the provider is called, so that a row left `sending` names a message whose outcome
   * was never recorded. Answers the row and the status it was claimed from; null when it is settled (or gone).
   */
  async claim(
    scope: TenantScope,
    id: string,
    fromNumber: string | null,
  ): Promise<{ row: SmsMessageEntity; from: 'queued' | 'sending' } | null> {
    const [rows] = await this.sql<[Record<string, unknown>[], number]>(
      scope,
      // The row is found by its primary key alone, the scope and status checked after: with the statistics of
      // a table that grew from empty (a first burst of sends), a lookup naming tenant, mode and status chose
      // the status index and read every queued row per claim (bench/README.md, SMS sending).
      `UPDATE sms_messages m SET status = 'sending', attempts = m.attempts + 1, from_number = $4, updated_at = $5
         FROM (SELECT id, tenant_id, mode, status FROM sms_messages WHERE id = $3 FOR UPDATE) old
        WHERE m.id = old.id AND old.tenant_id = $1 AND old.mode = $2 AND old.status IN ('queued', 'sending')
        RETURNING m.*, old.status AS claimed_from`,
      [id, fromNumber, clock.now()],
    );
    const raw = rows[0];
    return raw ? { row: this.fromRow(raw), from: raw.claimed_from as 'queued' | 'sending' } : null;
  }

  /** Settles a claimed message as sent (the provider, the log or the test transport took it); the row when this call settled it. */
  markSent(
    scope: TenantScope,
    id: string,
    values: { transport: SmsTransportName; providerMessageId: string | null },
    tx: EntityManager,
  ): Promise<SmsMessageEntity | null> {
    return this.updateFromStatus(
      scope,
      id,
      ['sending'],
      `status = 'sent', transport = $5, provider_message_id = $6, last_error = NULL, sent_at = $7`,
      [values.transport, values.providerMessageId, clock.now()],
      tx,
    );
  }

  /** The patient opted out before the message went: it is not sent (again). */
  markSuppressed(scope: TenantScope, id: string, reason: string, tx: EntityManager): Promise<SmsMessageEntity | null> {
    return this.updateFromStatus(scope, id, ['queued', 'sending'], `status = 'suppressed', last_error = $5`, [reason], tx);
  }

  /** A try that did not reach the provider, or that it refused for now: back to `queued`, the error kept. */
  async markRetry(scope: TenantScope, id: string, error: string): Promise<void> {
    await this.sql(
      scope,
      `UPDATE sms_messages SET status = 'queued', last_error = $4, updated_at = $5
        WHERE tenant_id = $1 AND mode = $2 AND id = $3 AND status = 'sending'`,
      [id, lastError(error), clock.now()],
    );
  }

  /**
   * What the provider reported later (delivered, undelivered, failed), for a message it accepted. A final
   * status is never left: a late or repeated callback changes nothing. Answers the row when it changed.
   */
  applyOutcome(
    scope: TenantScope,
    id: string,
    outcome: ProviderOutcome,
    error: string | null,
    tx: EntityManager,
  ): Promise<SmsMessageEntity | null> {
    return this.updateFromStatus(
      scope,
      id,
      ['sending', 'sent'],
      `status = $5, last_error = coalesce($6, last_error)`,
      [outcome, error === null ? null : lastError(error)],
      tx,
    );
  }

  /**
   * The message a provider id names, whatever its tenant: a status callback names no tenant. Answers its
   * scope and id; everything after that goes through the scope.
   */
  async scopeOfProviderMessage(providerMessageId: string): Promise<(TenantScope & { id: string }) | null> {
    const rows = await this.unscopedSql<(TenantScope & { id: string })[]>(
      `SELECT tenant_id AS "tenantId", mode, id FROM sms_messages WHERE provider_message_id = $1`,
      [providerMessageId],
    );
    return rows[0] ?? null;
  }
}
