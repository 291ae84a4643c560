import { Injectable, Logger } from '@nestjs/common';
import { TenantScope } from '../../database/tenant-owned.entity';
import { Transactions } from '../../database/transactions';
import { EventsService } from '../events';
import { PatientsService } from '../patients';
import { AppointmentsService } from '../scheduling';
import { SettingsService } from '../settings';
import { E164_PATTERN, SmsConsent } from '../sms';

/** The carrier-mandated keywords (CTIA; Twilio's defaults). */
const OPT_OUT = new Set(['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT']);
const OPT_IN = new Set(['START', 'YES', 'UNSTOP']);
const HELP = new Set(['HELP', 'INFO']);
const CONFIRM = new Set(['C', 'CONFIRM']);

/** How far ahead a "C" reply looks for the appointment it confirms. */
const CONFIRM_WINDOW_MS = 48 * 3600_000;

/** A live patient an inbound text concerns. */
interface Sender {
  scope: TenantScope;
  patientId: string;
}

export interface InboundOutcome {
  /** The text to answer with (TwiML), if any. */
  reply: string | null;
  /** Patients whose consent this text changed: one audit entry each. */
  consentChanges: { scope: TenantScope; patientId: string }[];
}

/**
 * Texts patients send to a practice number: consent keywords change the patient records of SMS, a "C" asks
 * Scheduling to confirm the next appointment. Twilio names numbers, never tenants: a number answers for the
 * tenant an operator assigned it to in live mode (TWILIO_FROM for every tenant without one), and each change
 * is then made through that tenant's scope.
 */
@Injectable()
export class SmsInboundService {
  private readonly logger = new Logger(SmsInboundService.name);

  constructor(
    private readonly consent: SmsConsent,
    private readonly transactions: Transactions,
    private readonly patients: PatientsService,
    private readonly settings: SettingsService,
    private readonly events: EventsService,
    private readonly appointments: AppointmentsService,
  ) {}

  /** A text from a phone to one of the practices' numbers. */
  async receive(fields: Record<string, string>): Promise<InboundOutcome> {
    const none: InboundOutcome = { reply: null, consentChanges: [] };
    const phone = fields.From ?? '';
    const number = fields.To ?? '';
    if (!E164_PATTERN.test(phone) || !E164_PATTERN.test(number)) return none;
    const keyword = (fields.Body ?? '')
      .trim()
      .replace(/[.!]+$/, '')
      .toUpperCase();
    if (OPT_OUT.has(keyword)) return this.setOptOut(phone, number, keyword);
    if (OPT_IN.has(keyword)) return this.setOptOut(phone, number, null);
    if (HELP.has(keyword)) return { reply: await this.help(await this.senders(phone, number)), consentChanges: [] };
    if (CONFIRM.has(keyword)) return { reply: await this.confirm(await this.senders(phone, number)), consentChanges: [] };
    return none;
  }

  /**
   * The live patients with this phone in the tenants that send from `number`: the live tenant it is assigned
   * to, or, for TWILIO_FROM, every tenant without a live number of its own.
   */
  private async senders(phone: string, number: string): Promise<Sender[]> {
    const receivers = await this.consent.receivers(number);
    const live = receivers === 'default' ? null : new Set(receivers.filter((r) => r.mode === 'live').map((r) => r.tenantId));
    if (live?.size === 0) return [];
    const found = await this.patients.livePatientsByPhone(phone);
    const sendsFrom = new Map<string, boolean>();
    const senders: Sender[] = [];
    for (const { tenantId, id } of found) {
      const scope: TenantScope = { tenantId, mode: 'live' };
      if (!sendsFrom.has(tenantId)) sendsFrom.set(tenantId, live ? live.has(tenantId) : await this.consent.usesDefault(scope));
      if (sendsFrom.get(tenantId)) senders.push({ scope, patientId: id });
    }
    return senders;
  }

  /**
   * A STOP word (`stopKeyword`, the word received) or a START word (null): recorded for the phone and the
   * number whoever the phone is, then for each sender's patient record (`patient.updated` with `previous`,
   * and `sms.opted_out` for a STOP).
   */
  private async setOptOut(phone: string, number: string, stopKeyword: string | null): Promise<InboundOutcome> {
    const optOut = stopKeyword !== null;
    await this.consent.record(phone, number, stopKeyword);
    const senders = await this.senders(phone, number);
    const consentChanges: InboundOutcome['consentChanges'] = [];
    for (const { scope, patientId } of senders) {
      const changed = await this.transactions.run(async (tx) => {
        const change = await this.patients.setConsent(scope, patientId, { smsOptOut: optOut }, tx);
        if (!change?.changed) return false;
        if (stopKeyword) await this.events.record(scope, 'sms.opted_out', { patientId, phone, source: 'sms', keyword: stopKeyword }, tx);
        return true;
      });
      if (changed) consentChanges.push({ scope, patientId });
    }
    this.logger.log(`inbound ${optOut ? 'opt-out' : 'opt-in'}: ${consentChanges.length} patient record(s) changed`);
    // Twilio answers STOP and START itself (its Advanced Opt-Out), so we add no second reply.
    return { reply: null, consentChanges };
  }

  /** HELP: who is texting, and how to stop it. */
  private async help(senders: Sender[]): Promise<string> {
    const names = [...new Set(await Promise.all(senders.map((s) => this.settings.practiceName(s.scope))))];
    // A phone no practice here knows still learns what kind of messages these are.
    const who = names.length ? names.join(', ') : 'your healthcare practice';
    return `${who}: appointment messages. Reply STOP to opt out, START to opt back in. Msg & data rates may apply.`;
  }

  /** C / CONFIRM: each sender's next scheduled appointment within 48 hours becomes confirmed. */
  private async confirm(senders: Sender[]): Promise<string> {
    let confirmed = 0;
    for (const { scope, patientId } of senders) {
      if (await this.appointments.confirmNext(scope, patientId, CONFIRM_WINDOW_MS)) confirmed++;
    }
    return confirmed ? 'Thank you: your appointment is confirmed.' : 'We found no appointment to confirm in the next 48 hours.';
  }
}
