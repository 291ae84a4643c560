import { Injectable } from '@nestjs/common';
import { DateTime } from 'luxon';
import { EntityManager } from 'typeorm';
import { ResourceNotFoundProblem } from '../../../common/http/errors/problem';
import { isLinkToken, newLinkToken } from '../../../common/ids';
import { JobOutbox } from '../../../common/queue/job-outbox';
import { JobName, WaitlistTimeFreedPayload } from '../../../common/queue/queues';
import { apiPath } from '../../../common/http/responses/response-headers';
import { BusinessClock } from '../../../common/time/business-clock';
import { AppConfig } from '../../../config/app-config';
import { retryOnDeadlock } from '../../../database/database-errors';
import { TenantScope } from '../../../database/tenant-owned.entity';
import { Transactions } from '../../../database/transactions';
import { EventsService } from '../../events';
import { MessagingService } from '../../messaging';
import { PatientsService } from '../../patients';
import { SettingsService } from '../../settings';
import { typePolicy } from '../appointments/appointment-policies';
import { AppointmentsRepository } from '../appointments/appointments.repository';
import { AppointmentsService } from '../appointments/appointments.service';
import { AppointmentDto } from '../appointments/dto/appointment.dto';
import { templateAppointment } from '../appointments/template-appointment';
import { isActive } from '../appointments/transitions';
import { AppointmentTypeEntity } from '../appointment-types/entities/appointment-type.entity';
import { AppointmentTypesService } from '../appointment-types/appointment-types.service';
import { AvailabilityService, offering } from '../availability/availability.service';
import { minutesOf } from '../availability/slots';
import { HoldsService } from '../holds/holds.service';
import { ProviderEntity } from '../providers/entities/provider.entity';
import { ProvidersRepository } from '../providers/providers.repository';
import { OfferExpiredException } from '../scheduling.exceptions';
import { PublicWaitlistOfferDto, WaitlistOfferDto } from './dto/waitlist.dto';
import { WaitlistEntryEntity } from './entities/waitlist-entry.entity';
import { WaitlistOfferEntity } from './entities/waitlist-offer.entity';
import { offerEmail, offerSms, offerVariables } from './offer-text';
import { TimeFreed } from './time-freed';
import { WaitlistEntriesRepository, WaitlistOffersRepository } from './waitlist.repository';

const MINUTE = 60_000;
const DAY = 86_400_000;
/** How far into a long freeing (time off removed) slots are looked for. */
const MAX_FREED_DAYS = 31;
/** A pending offer's slot as the offer's own entry sees it. */
interface Slot {
  provider: ProviderEntity;
  type: AppointmentTypeEntity;
  start: number;
}

/** The offer a link names, with what its routes need. */
export interface LinkedOffer {
  scope: TenantScope;
  offer: WaitlistOfferEntity;
}

/**
 * Waitlist offers: freed time offered to the oldest fitting waiting entry, one slot to one entry at a time
 * (a hold keeps it for the type's waitlistOfferMinutes), and what the patient does with the offer's link.
 * Each step runs in one transaction with its hold, message, events and follow-up jobs; an offer that ends
 * without a booking (declined, expired, withdrawn) is itself a freeing of its slot, named by the offer's id.
 */
@Injectable()
export class WaitlistOffers {
  constructor(
    private readonly entries: WaitlistEntriesRepository,
    private readonly offers: WaitlistOffersRepository,
    private readonly holds: HoldsService,
    private readonly appointments: AppointmentsService,
    private readonly appointmentRows: AppointmentsRepository,
    private readonly availability: AvailabilityService,
    private readonly types: AppointmentTypesService,
    private readonly providers: ProvidersRepository,
    private readonly patients: PatientsService,
    private readonly messaging: MessagingService,
    private readonly settings: SettingsService,
    private readonly events: EventsService,
    private readonly outbox: JobOutbox,
    private readonly freed: TimeFreed,
    private readonly transactions: Transactions,
    private readonly clock: BusinessClock,
    private readonly config: AppConfig,
  ) {}

  /**
   * A freeing's job: the oldest waiting entry that fits a bookable slot of its type in the freed span gets
   * it. Answers what it did; a freeing already handled (its offer exists) does nothing more.
   */
  offerFreed(job: WaitlistTimeFreedPayload): Promise<'offered' | 'handled' | 'nobody'> {
    const scope: TenantScope = { tenantId: job.tenantId, mode: job.mode };
    return retryOnDeadlock(() =>
      this.transactions.run(async (tx) => {
        if (await this.offers.findByFreeing(scope, job.freeingId, tx)) return 'handled';
        // The provider's turn first: bookings and holds of its time wait, so the slot found stays free.
        await this.appointments.takeTurn(scope, job.providerId, tx);
        const provider = await this.providers.findById(scope, job.providerId, tx);
        if (!provider?.isActive) return 'nobody';
        const from = Date.parse(job.from);
        const to = Math.min(Date.parse(job.to), from + MAX_FREED_DAYS * DAY);
        const found = await this.firstFit(scope, provider, from, to, tx);
        if (!found) return 'nobody';
        await this.make(scope, job.freeingId, found.entry, found.slot, tx);
        return 'offered';
      }),
    );
  }

  /** The oldest waiting entry with a free slot of its type in [from, to), claimed (`offered`), and the earliest such slot. */
  private async firstFit(
    scope: TenantScope,
    provider: ProviderEntity,
    from: number,
    to: number,
    tx: EntityManager,
  ): Promise<{ entry: WaitlistEntryEntity; slot: Slot } | null> {
    const waiting = await this.entries.waitingFor(scope, provider.id, tx);
    const slotsOfType = new Map<string, number[]>();
    for (const entry of waiting) {
      const type = await this.types.find(scope, entry.appointmentTypeId, tx);
      if (!type?.isActive || !offering(type, [provider]).length) continue;
      let starts = slotsOfType.get(type.id);
      if (!starts) {
        const range = { start: { instant: from }, end: { instant: to } };
        starts = (await this.availability.slotsFor(scope, [provider], range, typePolicy(type))).map((s) => Date.parse(s.start));
        slotsOfType.set(type.id, starts);
      }
      const before = await this.movesEarlierThan(scope, entry, provider, tx);
      if (before === null) continue;
      const passed = await this.passedOn(scope, entry.id, tx);
      const start = starts.find(
        (s) => s < before && !passed.has(`${provider.id}@${s}`) && fits(entry, s, s + type.durationMinutes * MINUTE, provider.timezone),
      );
      if (start === undefined) continue;
      // Checked again in this transaction, under the provider's turn, as the hold will be.
      if (await this.availability.unbookable(scope, provider, start, typePolicy(type), { tx })) continue;
      // Claimed here: a concurrent freeing of another provider's time that took it first leaves it `offered`.
      if (!(await this.entries.move(scope, entry.id, ['waiting'], 'offered', tx))) continue;
      return { entry, slot: { provider, type, start } };
    }
    return null;
  }

  /**
   * The start a slot must be before for this entry: its appointment's, when it waits to move one (which
   * moves only with its own provider); Infinity otherwise; null when this provider cannot move it.
   */
  private async movesEarlierThan(
    scope: TenantScope,
    entry: WaitlistEntryEntity,
    provider: ProviderEntity,
    tx: EntityManager,
  ): Promise<number | null> {
    if (!entry.appointmentId) return Infinity;
    const appointment = await this.appointmentRows.findById(scope, entry.appointmentId, tx);
    if (!appointment || !isActive(appointment.status)) return Infinity;
    return appointment.providerId === provider.id ? appointment.startsAt.getTime() : null;
  }

  /** The slots this entry declined or let lapse: not offered to it again. */
  private async passedOn(scope: TenantScope, entryId: string, tx: EntityManager): Promise<Set<string>> {
    const offers = (await this.offers.ofEntries(scope, [entryId], tx)).get(entryId)!;
    return new Set(offers.filter((o) => o.status !== 'pending').map((o) => `${o.providerId}@${o.startsAt.getTime()}`));
  }

  /** The offer to a claimed entry: its hold, the message by the type's notice channels, its expiry job and event. */
  private async make(scope: TenantScope, freeingId: string, entry: WaitlistEntryEntity, slot: Slot, tx: EntityManager): Promise<void> {
    const { provider, type, start } = slot;
    const hold = await this.holds.take(
      scope,
      { provider, start, policy: typePolicy(type), ttlSeconds: type.waitlistOfferMinutes * 60, schedulerId: null },
      tx,
    );
    const offer = await this.offers.insert(
      scope,
      {
        entryId: entry.id,
        freeingId,
        holdId: hold.id,
        providerId: provider.id,
        startsAt: new Date(start),
        endsAt: new Date(hold.end),
        duration: type.durationMinutes,
        expiresAt: new Date(hold.expiresAt),
        token: newLinkToken(),
        status: 'pending',
        appointmentId: null,
      },
      tx,
    );
    await this.outbox.add(
      JobName.WaitlistOfferExpire,
      { offerId: offer.id, expiresAt: offer.expiresAt.toISOString(), tenantId: scope.tenantId, mode: scope.mode },
      { jobId: offer.id, runAt: offer.expiresAt, dueBy: scope },
      tx,
    );
    await this.tell(scope, entry, offer, provider, type, tx);
    await this.events.record(scope, 'waitlist.offered', eventOf(entry, offer), tx);
  }

  /** The patient's message: one per channel of the type's notices, through the one message pipeline. */
  private async tell(
    scope: TenantScope,
    entry: WaitlistEntryEntity,
    offer: WaitlistOfferEntity,
    provider: ProviderEntity,
    type: AppointmentTypeEntity,
    tx: EntityManager,
  ): Promise<void> {
    const url = this.url(offer.token);
    const practiceName = await this.settings.practiceName(scope, tx);
    const base = {
      kind: 'waitlist_offer' as const,
      patientId: entry.patientId,
      appointment: templateAppointment(
        { startsAt: offer.startsAt, durationMinutes: type.durationMinutes, typeName: type.name, manageUrl: url },
        provider,
      ),
      variables: { offer: offerVariables(url, practiceName, offer.startsAt, offer.expiresAt, provider.timezone) },
    };
    for (const channel of type.noticeChannels) {
      if (channel === 'sms') await this.messaging.queue(scope, 'sms', { ...base, body: offerSms() }, tx);
      else await this.messaging.queue(scope, 'email', { ...base, content: offerEmail() }, tx);
    }
  }

  /** `{PUBLIC_URL}/api/v1/public/waitlist-offers/{token}`. */
  url(token: string): string {
    return `${this.config.http.publicUrl}${apiPath('public', 'waitlist-offers', token)}`;
  }

  /**
   * Ends a pending offer without a booking (declined, or expired: lapsed or withdrawn with its entry): its
   * hold let go, its expiry job forgotten, its entry waiting again, and its slot a freeing for the next entry.
   */
  async end(scope: TenantScope, offer: WaitlistOfferEntity, status: 'declined' | 'expired', tx: EntityManager): Promise<boolean> {
    const ended = await this.offers.settle(scope, offer.id, status, tx);
    if (!ended) return false;
    await this.holds.letGo(scope, offer.holdId, status === 'declined' ? 'released' : 'expired', tx);
    await this.outbox.forget(JobName.WaitlistOfferExpire, [offer.id], tx);
    const entry = (await this.entries.findById(scope, offer.entryId, tx))!;
    await this.entries.move(scope, offer.entryId, ['offered'], 'waiting', tx);
    await this.freed.record(scope, { providerId: offer.providerId, from: offer.startsAt, to: offer.endsAt }, tx, offer.id);
    await this.events.record(scope, status === 'declined' ? 'waitlist.declined' : 'waitlist.expired', eventOf(entry, ended), tx);
    return true;
  }

  /** The expiry job: a pending offer whose time has come on the clock expires; anything else is settled already. */
  expire(scope: TenantScope, offerId: string): Promise<'expired' | 'settled'> {
    return this.transactions.run(async (tx) => {
      const offer = await this.lockedOffer(scope, offerId, tx);
      if (!offer || offer.status !== 'pending') return 'settled';
      if (offer.expiresAt.getTime() > (await this.clock.nowMs(scope, tx))) return 'settled';
      return (await this.end(scope, offer, 'expired', tx)) ? 'expired' : 'settled';
    });
  }

  /** The offer a link's token names, in its own tenant and mode; 404 for anything else. */
  async require(token: string): Promise<LinkedOffer> {
    const offer = isLinkToken(token) ? await this.offers.findByToken(token) : null;
    if (!offer) throw new ResourceNotFoundProblem('The waitlist offer');
    return { scope: { tenantId: offer.tenantId, mode: offer.mode }, offer };
  }

  /** GET: the slot offered; 410 offer_expired once it is kept no more. */
  async view({ scope, offer }: LinkedOffer): Promise<PublicWaitlistOfferDto> {
    await this.checkLive(scope, offer);
    const [provider, entry] = await Promise.all([
      this.providers.findById(scope, offer.providerId),
      this.entries.findById(scope, offer.entryId),
    ]);
    const type = entry && (await this.types.find(scope, entry.appointmentTypeId));
    return {
      status: offer.status,
      datetime: offer.startsAt.toISOString(),
      end: offer.endsAt.toISOString(),
      expiresAt: offer.expiresAt.toISOString(),
      providerName: provider!.name,
      timezone: provider!.timezone,
      appointmentTypeName: type?.name ?? null,
      practiceName: await this.settings.practiceName(scope),
    };
  }

  /**
   * Accept: the held slot booked for the patient, or their appointment moved into it (source `patient_link`),
   * the offer `accepted`, the entry `booked`, in one transaction. An accepted offer answers its appointment again.
   */
  async accept({ scope, offer: seen }: LinkedOffer): Promise<AppointmentDto> {
    await this.checkLive(scope, seen);
    try {
      return await retryOnDeadlock(() =>
        this.transactions.run(async (tx) => {
          const entry = (await this.entries.findByIdLocked(scope, seen.entryId, tx))!;
          const offer = (await this.lockedOffer(scope, seen.id, tx))!;
          if (offer.status === 'accepted' && offer.appointmentId) return this.appointments.get(scope, offer.appointmentId);
          await this.checkLive(scope, offer, tx);
          const held = await this.holds.consume(scope, offer.holdId, { notes: null }, tx);
          const current = entry.appointmentId ? await this.appointmentRows.findById(scope, entry.appointmentId, tx) : null;
          let appointment: AppointmentDto;
          if (current && isActive(current.status)) {
            const datetime = offer.startsAt.toISOString();
            appointment = await this.appointments.changeWithin(scope, current.id, { datetime }, 'patient_link', tx);
          } else {
            const patient = await this.patients.find(scope, entry.patientId, tx);
            if (!patient) throw new OfferExpiredException();
            const request = { ...held.request, notifyPatient: true };
            await this.appointments.claimSlot(scope, held.provider, request, tx);
            appointment = await this.appointments.recordBooking(scope, held.provider, request, patient, tx);
          }
          await this.holds.booked(scope, offer.holdId, appointment.id, tx);
          const accepted = (await this.offers.settle(scope, offer.id, 'accepted', tx, appointment.id))!;
          await this.outbox.forget(JobName.WaitlistOfferExpire, [offer.id], tx);
          await this.entries.move(scope, entry.id, ['offered'], 'booked', tx);
          await this.events.record(
            scope,
            'waitlist.accepted',
            { ...eventOf(entry, accepted), appointmentId: appointment.id, source: 'patient_link' },
            tx,
          );
          return appointment;
        }),
      );
    } catch (err) {
      const provider = await this.providers.findById(scope, seen.providerId);
      const entry = await this.entries.findById(scope, seen.entryId);
      const type = entry && (await this.types.find(scope, entry.appointmentTypeId));
      const refused =
        provider &&
        type &&
        (await this.appointments.slotUnavailable(scope, err, { provider, start: seen.startsAt.getTime(), policy: typePolicy(type) }));
      throw refused ? refused.keyless() : err;
    }
  }

  /** Decline: the offer `declined`, its slot to the next fitting entry, its entry waiting again. */
  async decline({ scope, offer: seen }: LinkedOffer): Promise<PublicWaitlistOfferDto> {
    await this.checkLive(scope, seen);
    await this.transactions.run(async (tx) => {
      const offer = (await this.lockedOffer(scope, seen.id, tx))!;
      if (offer.status === 'declined') return;
      await this.checkLive(scope, offer, tx);
      if (offer.status !== 'pending') throw new OfferExpiredException();
      await this.end(scope, offer, 'declined', tx);
    });
    return this.view({ scope, offer: (await this.offers.findById(scope, seen.id))! });
  }

  /** 410 offer_expired for an offer that lapsed (by the clock, whether or not its job has run) or was withdrawn. */
  private async checkLive(scope: TenantScope, offer: WaitlistOfferEntity, tx?: EntityManager): Promise<void> {
    if (offer.status === 'expired') throw new OfferExpiredException();
    if (offer.status === 'pending' && offer.expiresAt.getTime() <= (await this.clock.nowMs(scope, tx))) throw new OfferExpiredException();
  }

  private lockedOffer(scope: TenantScope, id: string, tx: EntityManager): Promise<WaitlistOfferEntity | null> {
    return this.offers.findByIdLocked(scope, id, tx);
  }
}

/** Whether [start, end) is within the entry's dates and one of its windows, in the provider's local time. */
export function fits(
  entry: Pick<WaitlistEntryEntity, 'earliestDate' | 'latestDate' | 'windows'>,
  start: number,
  end: number,
  zone: string,
): boolean {
  const local = DateTime.fromMillis(start, { zone });
  const date = local.toISODate()!;
  if (entry.earliestDate && date < entry.earliestDate) return false;
  if (entry.latestDate && date > entry.latestDate) return false;
  if (!entry.windows.length) return true;
  const localEnd = DateTime.fromMillis(end, { zone });
  const from = local.hour * 60 + local.minute;
  const to = localEnd.toISODate() === date ? localEnd.hour * 60 + localEnd.minute : 24 * 60;
  return entry.windows.some((w) => w.weekday === local.weekday && minutesOf(w.start) <= from && to <= minutesOf(w.end));
}

function eventOf(
  entry: WaitlistEntryEntity,
  offer: WaitlistOfferEntity,
): WaitlistOfferDto & { entryId: string; patientId: string; appointmentTypeId: string } {
  return {
    id: offer.id,
    datetime: offer.startsAt.toISOString(),
    providerId: offer.providerId,
    expiresAt: offer.expiresAt.toISOString(),
    status: offer.status,
    entryId: entry.id,
    patientId: entry.patientId,
    appointmentTypeId: entry.appointmentTypeId,
  };
}
