import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Mode, TenantScope } from '../../database/tenant-owned.entity';
import { SmsNumbersRepository } from './sms-numbers.repository';

export { SENDER_NUMBER_PATTERN } from './sender-number';

export interface SmsNumberAssignment {
  tenantId: string;
  mode: Mode;
  number: string;
}

/** The number asked for is another tenant's in that mode. */
export class SmsNumberTakenError extends Error {
  constructor(number: string, mode: Mode) {
    super(`${number} is assigned to another tenant in ${mode} mode (sms-numbers:unassign it there first)`);
  }
}

/**
 * Which tenant texts from which number, per mode. Operators assign numbers (the CLI); the API only reads
 * them, since a number decides whose patients' replies a practice receives.
 */
@Injectable()
export class SmsNumbersService {
  constructor(private readonly numbers: SmsNumbersRepository) {}

  /** The scope's own number, or null when it sends from the default (TWILIO_FROM). */
  async find(scope: TenantScope, tx?: EntityManager): Promise<string | null> {
    return (await this.numbers.findOne(scope, {}, tx))?.number ?? null;
  }

  /** The scopes that send from `number` (at most one per mode). */
  async holders(number: string): Promise<TenantScope[]> {
    return (await this.numbers.holders({ number })).map(({ tenantId, mode }) => ({ tenantId, mode }));
  }

  /** Every assignment, or one tenant's. */
  async list(tenantId?: string): Promise<SmsNumberAssignment[]> {
    return (await this.numbers.holders(tenantId ? { tenantId } : {})).map(({ tenantId: id, mode, number }) => ({
      tenantId: id,
      mode,
      number,
    }));
  }

  /**
   * Makes `number` the scope's sending number (replacing its previous one); assigning the same again changes
   * nothing. Throws SmsNumberTakenError when another tenant holds it in that mode.
   */
  async assign(scope: TenantScope, number: string): Promise<SmsNumberAssignment> {
    try {
      await this.numbers.upsert(scope, number);
    } catch (err) {
      // The unique index on (number, mode) is the rule; a concurrent assignment meets it too.
      if ((err as { constraint?: string }).constraint === 'UQ_SMS_NUMBERS_NUMBER_MODE') throw new SmsNumberTakenError(number, scope.mode);
      throw err;
    }
    return { tenantId: scope.tenantId, mode: scope.mode, number };
  }

  /** Removes the scope's number (it sends from TWILIO_FROM again); answers the number it had, if any. */
  unassign(scope: TenantScope): Promise<string | null> {
    return this.numbers.remove(scope);
  }
}
