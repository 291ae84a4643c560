import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { auditAs } from '../../common/audit/audited.decorator';
import { ApiException, FieldError } from '../../common/http/errors/problem';
import { createValidationPipe } from '../../common/http/errors/validation';
import { asPage } from '../../common/http/responses/html-page';
import { PageLook, SettingsService } from '../settings';
import { confirmationPage, DetailsValues, detailsPage, receivedPage, timesPage } from './booking-page.view';
import { PublicBookingDto, PublicHoldDto } from './dto/public-scheduler.dto';
import { SchedulerEntity } from './entities/scheduler.entity';
import { PublicBookingService } from './public-booking.service';

const PICK = 'Please pick one of the times below.';
const TAKEN = 'Sorry, that time was just taken. Please pick another.';
const LAPSED = 'We held that time for you for a few minutes, and the hold has ended. Please pick a time again.';
/** Why a refused step shows the times again, and its status, by the refusal's code. */
const BACK_TO_TIMES: Partial<Record<string, { status: number; notice: string }>> = {
  slot_unavailable: { status: 409, notice: TAKEN },
  hold_expired: { status: 410, notice: LAPSED },
  hold_consumed: { status: 409, notice: 'That time is booked already.' },
};
const validation = createValidationPipe();

/** The fields of a form as a DTO takes them, or the fields it refused. */
async function validated<T>(metatype: new () => T, fields: Record<string, string | undefined>): Promise<T | FieldError[]> {
  try {
    return (await validation.transform(fields, { type: 'body', metatype })) as T;
  } catch (err) {
    return fieldErrors(err);
  }
}

/** The fields a refusal names (a validation failure), or rethrows anything else. */
function fieldErrors(err: unknown): FieldError[] {
  if (err instanceof ApiException && err.code === 'validation_failed') return err.extensions.errors ?? [];
  throw err;
}

/** A form's filled-in fields: an empty input is as absent as in a JSON body without it. */
const filled = (fields: Record<string, string | undefined>): Record<string, string> =>
  Object.fromEntries(Object.entries(fields).filter((entry): entry is [string, string] => !!entry[1]));

/**
 * The hosted booking page, for a browser at a scheduler's bookingUrl: server-rendered steps (times, details,
 * confirmation) whose links and forms work without script, over the same service as the JSON routes (a
 * picked time is a hold of POST /public/schedulers/{id}/holds, the details a booking with its holdId), in
 * the practice's name and colours, framed only by the practice's `embedOrigins`.
 */
@Injectable()
export class BookingPageService {
  constructor(
    private readonly booking: PublicBookingService,
    private readonly settings: SettingsService,
  ) {}

  /** The first step: free times of the chosen provider for a week from `from`. */
  async times(
    reply: FastifyReply,
    scheduler: SchedulerEntity,
    query: { provider?: string; from?: string },
    notice?: string,
  ): Promise<string> {
    const look = await this.prepare(reply, scheduler);
    return timesPage(look, { ...(await this.booking.pageTimes(scheduler, query.provider, query.from)), notice });
  }

  /** A time picked: held for the patient, then the details form; a time no longer free shows the times again. */
  async hold(reply: FastifyReply, id: string, fields: Record<string, string>): Promise<string> {
    const scheduler = await this.booking.require(id);
    const form = await validated(PublicHoldDto, filled({ datetime: fields.datetime, providerId: fields.providerId }));
    if (Array.isArray(form)) return this.backToTimes(reply, scheduler, 400, PICK);
    try {
      const { holdId } = await this.booking.hold(scheduler, form);
      return await this.details(reply, scheduler, holdId, {}, []);
    } catch (err) {
      return this.refused(reply, scheduler, err, form.providerId);
    }
  }

  /**
   * The details form posted: the confirmation when booked; the form again (400) with the messages beside
   * the fields and the entries kept; the times again when the hold lapsed or the time went meanwhile. A
   * filled-in honeypot books nothing and gets a plain acknowledgement, so a bot learns nothing.
   */
  async book(request: FastifyRequest, reply: FastifyReply, id: string, fields: Record<string, string>): Promise<string> {
    const scheduler = await this.booking.require(id);
    auditAs(request, scheduler);
    if (fields.website?.trim()) return receivedPage(await this.prepare(reply.status(200), scheduler));
    const values: DetailsValues = { firstName: fields.firstName, lastName: fields.lastName, email: fields.email, phone: fields.phone };
    const dto = await validated(PublicBookingDto, filled({ ...values, holdId: fields.holdId }));
    if (Array.isArray(dto)) return this.details(reply.status(400), scheduler, fields.holdId ?? '', values, dto);
    try {
      const booked = await this.booking.book(scheduler, dto);
      auditAs(request, scheduler, booked.id);
      const look = await this.prepare(reply, scheduler);
      return confirmationPage(look, {
        heading: this.booking.pageHeading(scheduler, booked.type, booked.duration),
        provider: booked.provider,
        start: booked.datetime,
        manageUrl: booked.manageUrl,
      });
    } catch (err) {
      if (err instanceof ApiException && BACK_TO_TIMES[err.code]) {
        return this.refused(reply, scheduler, err, (await this.booking.heldTime(scheduler, dto.holdId ?? ''))?.providerId);
      }
      return this.details(reply.status(400), scheduler, dto.holdId ?? '', values, fieldErrors(err));
    }
  }

  /** The details form for a hold that still holds its time; the times again when it no longer does. */
  private async details(
    reply: FastifyReply,
    scheduler: SchedulerEntity,
    holdId: string,
    values: DetailsValues,
    errors: FieldError[],
  ): Promise<string> {
    const held = await this.booking.heldTime(scheduler, holdId);
    const step = held && (await this.booking.pageStep(scheduler, held.providerId));
    if (!held?.active || !step) return this.backToTimes(reply, scheduler, 410, LAPSED, step?.provider.id);
    const look = await this.prepare(reply, scheduler);
    return detailsPage(look, {
      ...step,
      start: held.start,
      holdId,
      heldUntil: held.expiresAt,
      requirePhone: scheduler.requirePhone,
      values,
      errors,
    });
  }

  /** A refused hold or booking as the patient reads it: the times again, saying why. */
  private refused(reply: FastifyReply, scheduler: SchedulerEntity, err: unknown, provider?: string): Promise<string> {
    const back = err instanceof ApiException ? BACK_TO_TIMES[err.code] : undefined;
    if (back) return this.backToTimes(reply, scheduler, back.status, back.notice, provider);
    if (err instanceof ApiException && err.code === 'validation_failed') return this.backToTimes(reply, scheduler, 400, PICK, provider);
    throw err;
  }

  private backToTimes(reply: FastifyReply, scheduler: SchedulerEntity, status: number, notice: string, provider?: string): Promise<string> {
    void reply.status(status);
    return this.times(reply, scheduler, provider ? { provider } : {}, notice);
  }

  /** The practice's look, with the page's headers set from it. */
  private async prepare(reply: FastifyReply, scheduler: SchedulerEntity): Promise<PageLook> {
    const look = await this.settings.pageLook(scheduler);
    asPage(reply, look, look.embedOrigins);
    return look;
  }
}
