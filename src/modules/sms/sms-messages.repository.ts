import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { PageRequest } from '../../common/http/pagination';
import { clock } from '../../common/time/clock';
import { TenantScope } from '../../database/tenant-owned.entity';
import { Page, TenantEntityRepository } from '../../database/tenant-scoped.repository';
import { SmsMessageEntity, SmsStatus, SmsTransportName } from './entities/sms-message.entity';
import type { SmsEncoding } from './sms-segments';

/** A message as queued: rendered and addressed. `suppressed` carries the reason it will not be sent. */
export interface NewSmsMessage {
  patientId: string | null;
  templateId: string | null;
  toNumber: string;
  body: string;
  segments: number;
  encoding: SmsEncoding;
  suppressed?: string;
}

export interface SmsMessageFilters {
  patientId?: string;
  status?: SmsStatus;
}

/** The statuses a provider's status callback may set. */
export type ProviderOutcome = Extract<SmsStatus, 'delivered' | 'undelivered' | 'failed'>;

/**
 * Messages and the status changes of their sending. Every change is one conditional UPDATE on the status
 * it expects, so two workers (or a worker and a callback) can never both move a message on.
 */
@Injectable()
export class SmsMessagesRepository extends TenantEntityRepository<SmsMessageEntity> {
  constructor(@InjectRepository(SmsMessageEntity) repository: Repository<SmsMessageEntity>) {
    super(repository);
  }

  async insertQueued(scope: TenantScope, values: NewSmsMessage, tx: EntityManager): Promise<SmsMessageEntity> {
    const { suppressed, ...rest } = values;
    return this.insert(scope, { ...rest, status: suppressed ? 'suppressed' : 'queued', lastError: suppressed ?? null, attempts: 0 }, tx);
  }

  list(scope: TenantScope, filters: SmsMessageFilters, page: PageRequest): Promise<Page<SmsMessageEntity>> {
    const q = this.query(scope, 'm');
    if (filters.patientId) q.andWhere('m.patient_id = :patientId', { patientId: filters.patientId });
    if (filters.status) q.andWhere('m.status = :status', { status: filters.status });
    return this.paginate(q, page);
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
      `UPDATE sms_messages m SET status = 'sending', attempts = m.attempts + 1, from_number = $4, updated_at = $5
         FROM (SELECT id, status FROM sms_messages
                WHERE tenant_id = $1 AND mode = $2 AND id = $3 AND status IN ('queued', 'sending') FOR UPDATE) old
        WHERE m.tenant_id = $1 AND m.mode = $2 AND m.id = old.id
        RETURNING m.*, old.status AS claimed_from`,
      [id, fromNumber, clock.now()],
    );
    const raw = rows[0];
    return raw ? { row: this.fromRaw(raw), from: raw.claimed_from as 'queued' | 'sending' } : null;
  }

  /** Settles a claimed message as sent (the provider, the log or the test transport took it); the row when this call settled it. */
  markSent(
    scope: TenantScope,
    id: string,
    values: { transport: SmsTransportName; providerMessageId: string | null },
    tx: EntityManager,
  ): Promise<SmsMessageEntity | null> {
    return this.settle(
      scope,
      id,
      ['sending'],
      `status = 'sent', transport = $5, provider_message_id = $6, last_error = NULL, sent_at = $7`,
      [values.transport, values.providerMessageId, clock.now()],
      tx,
    );
  }

  /** Settles a message as failed for good, from either unsettled status. */
  markFailed(scope: TenantScope, id: string, error: string, tx: EntityManager): Promise<SmsMessageEntity | null> {
    return this.settle(scope, id, ['queued', 'sending'], `status = 'failed', last_error = $5`, [error.slice(0, 500)], tx);
  }

  /** The patient opted out before the message went: it is not sent (again). */
  markSuppressed(scope: TenantScope, id: string, reason: string, tx: EntityManager): Promise<SmsMessageEntity | null> {
    return this.settle(scope, id, ['queued', 'sending'], `status = 'suppressed', last_error = $5`, [reason], tx);
  }

  /** A try that did not reach the provider, or that it refused for now: back to `queued`, the error kept. */
  async markRetry(scope: TenantScope, id: string, error: string): Promise<void> {
    await this.sql(
      scope,
      `UPDATE sms_messages SET status = 'queued', last_error = $4, updated_at = $5
        WHERE tenant_id = $1 AND mode = $2 AND id = $3 AND status = 'sending'`,
      [id, error.slice(0, 500), clock.now()],
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
    return this.settle(
      scope,
      id,
      ['sending', 'sent'],
      `status = $5, last_error = coalesce($6, last_error)`,
      [outcome, error?.slice(0, 500) ?? null],
      tx,
    );
  }

  /**
   * The message a provider id names, whatever its tenant: a status callback names no tenant. Answers its
   * scope and id; everything after that goes through the scope.
   */
  async scopeOfProviderMessage(providerMessageId: string): Promise<(TenantScope & { id: string }) | null> {
    const rows: (TenantScope & { id: string })[] = await this.repository.query(
      `SELECT tenant_id AS "tenantId", mode, id FROM sms_messages WHERE provider_message_id = $1`,
      [providerMessageId],
    );
    return rows[0] ?? null;
  }

  private async settle(
    scope: TenantScope,
    id: string,
    from: SmsStatus[],
    set: string,
    params: unknown[],
    tx: EntityManager,
  ): Promise<SmsMessageEntity | null> {
    const row = await this.updateFromStatus(scope, 'sms_messages', id, from, set, params, tx);
    return row ? this.fromRaw(row) : null;
  }

  private fromRaw(raw: Record<string, unknown>): SmsMessageEntity {
    return this.repository.create({
      id: raw.id,
      tenantId: raw.tenant_id,
      mode: raw.mode,
      patientId: raw.patient_id,
      templateId: raw.template_id,
      toNumber: raw.to_number,
      fromNumber: raw.from_number,
      body: raw.body,
      segments: raw.segments,
      encoding: raw.encoding,
      status: raw.status,
      transport: raw.transport,
      providerMessageId: raw.provider_message_id,
      attempts: raw.attempts,
      lastError: raw.last_error,
      sentAt: raw.sent_at,
      createdAt: raw.created_at,
      updatedAt: raw.updated_at,
    } as Partial<SmsMessageEntity>);
  }
}
