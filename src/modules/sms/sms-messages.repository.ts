import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { clock } from '../../common/time/clock';
import { TenantScope } from '../../database/tenant-owned.entity';
import { ClaimedMessage, lastError, MessageKind, OutgoingMessagesRepository } from '../../common/messaging';
import { SmsMessageEntity, SmsStatus } from './entities/sms-message.entity';
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
    const status = suppressed ? 'suppressed' : 'queued';
    return this.insert(scope, { ...rest, status, lastError: suppressed ?? null, attempts: 0, nextAttemptAt: clock.now() }, tx);
  }

  protected readonly relayIdColumn = 'provider_message_id';

  /** Takes a message for one try (see OutgoingMessagesRepository.claimRow), with the number a relay try sends from. */
  claim(scope: TenantScope, id: string, fromNumber: string | null): Promise<ClaimedMessage<SmsMessageEntity> | null> {
    return this.claimRow(scope, id, 'from_number = $5', [fromNumber]);
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
