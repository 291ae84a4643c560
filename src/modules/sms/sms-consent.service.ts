import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { clock } from '../../common/time/clock';
import { AppConfig } from '../../config/app-config';
import { TenantScope } from '../../database/tenant-owned.entity';
import { SettingsService } from '../settings';
import { SmsNumbersService } from '../sms-numbers';
import { SmsOptOutEntity } from './entities/sms-opt-out.entity';
import { countryOf, untextableReason } from './textable-numbers';

/** Why a message to an opted-out patient was not sent (its `lastError`). */
export const SMS_OPT_OUT_REASON = 'the patient opted out of SMS';
/** Why a message to a phone that texted STOP to the sending number was not sent. */
export const SMS_STOP_REASON = 'the phone replied STOP to the number this practice texts from';

/**
 * Who may be texted, from which number: the one rule a message meets when it is queued and again before
 * each try (an opt-out may come in between). Opt-outs are kept twice on purpose: the patient's `smsOptOut`
 * (any source: the API, an import, a reply), and the STOP registry per phone and sending number, which holds
 * whatever names the recipient, since carriers bind a STOP to the number it was sent to.
 */
@Injectable()
export class SmsConsent {
  constructor(
    private readonly config: AppConfig,
    private readonly numbers: SmsNumbersService,
    private readonly settings: SettingsService,
    @InjectRepository(SmsOptOutEntity) private readonly optOuts: Repository<SmsOptOutEntity>,
  ) {}

  /** The number the scope texts from: its operator-assigned one, else TWILIO_FROM (null without Twilio). */
  async fromNumber(scope: TenantScope, tx?: EntityManager): Promise<string | null> {
    return (await this.numbers.find(scope, tx)) ?? this.config.sms.twilio?.from ?? null;
  }

  /**
   * Why the scope may not text `number` (untextableReason with its countries), or null when it may; undefined
   * for a string that is no phone number. Inside a transaction, pass it.
   */
  async untextable(scope: TenantScope, number: string, tx?: EntityManager): Promise<string | null | undefined> {
    return untextableReason(number, await this.countries(scope, tx));
  }

  /**
   * The countries the scope texts: practice settings `smsCountries`, else the country of its sending number,
   * else (no sending number at all, SMS_PROVIDER=log without TWILIO_FROM) any country (null).
   */
  async countries(scope: TenantScope, tx?: EntityManager): Promise<readonly string[] | null> {
    const chosen = await this.settings.smsCountries(scope, tx);
    if (chosen) return chosen;
    const from = await this.fromNumber(scope, tx);
    const country = from ? countryOf(from) : null;
    return country ? [country] : null;
  }

  /**
   * Why a text to `to` (a patient's phone or a bare number) from `from` must not be sent, or null. Inside a
   * transaction, pass it: a second connection per send while one is held can exhaust the pool.
   */
  async suppression(to: string, patient: { smsOptOut: boolean } | null, from: string | null, tx?: EntityManager): Promise<string | null> {
    if (patient?.smsOptOut) return SMS_OPT_OUT_REASON;
    const optOuts = tx ? tx.getRepository(SmsOptOutEntity) : this.optOuts;
    if (from !== null && (await optOuts.existsBy({ phone: to, sendingNumber: from }))) return SMS_STOP_REASON;
    return null;
  }

  /** A STOP word (`keyword`) or a START word (null) from `phone` to our `number`. */
  async record(phone: string, number: string, keyword: string | null): Promise<void> {
    if (keyword === null) {
      await this.optOuts.delete({ phone, sendingNumber: number });
      return;
    }
    await this.optOuts
      .createQueryBuilder()
      .insert()
      .values({ phone, sendingNumber: number, keyword: keyword.slice(0, 16), optedOutAt: clock.now() })
      .orIgnore()
      .execute();
  }

  /**
   * The scopes a text to `number` concerns: the tenant it is assigned to (per mode), or, for TWILIO_FROM,
   * every tenant in live mode without a number of its own (`'default'`).
   */
  async receivers(number: string): Promise<TenantScope[] | 'default'> {
    const holders = await this.numbers.holders(number);
    if (holders.length) return holders;
    return number === this.config.sms.twilio?.from ? 'default' : [];
  }

  /** Whether the scope sends from TWILIO_FROM (it has no number of its own). */
  async usesDefault(scope: TenantScope): Promise<boolean> {
    return (await this.numbers.find(scope)) === null;
  }
}
