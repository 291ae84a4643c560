import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { auditAs } from '../../common/audit/audited.decorator';
import { ApiException, FieldError } from '../../common/http/errors/problem';
import { createValidationPipe } from '../../common/http/errors/validation';
import { asPage } from '../../common/http/responses/html-page';
import { PageLook, SettingsService } from '../settings';
import { confirmationPage, DetailsValues, detailsPage, receivedPage, timesPage } from './booking-page.view';
import { PageHoldFormDto, PublicBookingDto } from './dto/public-scheduler.dto';
import { SchedulerEntity } from './entities/scheduler.entity';
import { PublicBookingService } from './public-booking.service';

const TAKEN = 'Sorry, that time was just taken. Please pick another.';
const HELD_MINUTES = 5;
const validation = createValidationPipe();

/** The fields of a form as a DTO takes them, or the fields it refused. */
async function validated<T>(metatype: new () => T, fields: Record<string, string>): Promise<T | FieldError[]> {
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

/**
 * The hosted booking page, for a browser at a scheduler's bookingUrl: server-rendered steps (times, details,
 * confirmation) whose links and forms work without script, over the same service as the JSON routes, in the
 * practice's name and colours, framed only by the practice's `embedOrigins`.
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
    const form = await validated(PageHoldFormDto, { datetime: fields.datetime, providerId: fields.providerId });
    const step = Array.isArray(form) ? null : await this.booking.pageStep(scheduler, form.providerId);
    if (Array.isArray(form) || !step) {
      void reply.status(400);
      return this.times(reply, scheduler, {}, 'Please pick one of the times below.');
    }
    if (!(await this.booking.isFree(scheduler, form.providerId, form.datetime))) {
      void reply.status(409);
      return this.times(reply, scheduler, { provider: form.providerId }, TAKEN);
    }
    const look = await this.prepare(reply, scheduler);
    const heldUntil = new Date(Date.now() + HELD_MINUTES * 60_000).toISOString();
    return detailsPage(look, {
      ...step,
      start: form.datetime,
      holdId: '',
      heldUntil,
      requirePhone: scheduler.requirePhone,
      values: {},
      errors: [],
    });
  }

  /**
   * The details form posted: the confirmation when booked; the form again (400) with the messages beside
   * the fields and the entries kept; the times again (409) when the time went meanwhile. A filled-in
   * honeypot books nothing and gets a plain acknowledgement, so a bot learns nothing.
   */
  async book(request: FastifyRequest, reply: FastifyReply, id: string, fields: Record<string, string>): Promise<string> {
    const scheduler = await this.booking.require(id);
    auditAs(request, scheduler);
    const look = await this.prepare(reply, scheduler);
    const step = await this.booking.pageStep(scheduler, fields.providerId ?? '');
    if (!step) {
      void reply.status(400);
      return this.times(reply, scheduler, {}, 'Please pick one of the times below.');
    }
    if (fields.website?.trim()) {
      void reply.status(200);
      return receivedPage(look, step.heading);
    }
    const values: DetailsValues = { firstName: fields.firstName, lastName: fields.lastName, email: fields.email, phone: fields.phone };
    const again = (errors: FieldError[]): string => {
      void reply.status(400);
      const heldUntil = new Date(Date.now() + HELD_MINUTES * 60_000).toISOString();
      return detailsPage(look, {
        ...step,
        start: fields.datetime,
        holdId: '',
        heldUntil,
        requirePhone: scheduler.requirePhone,
        values,
        errors,
      });
    };
    const entered = Object.fromEntries(
      Object.entries({ ...values, datetime: fields.datetime }).filter(([, v]) => v !== undefined && v !== ''),
    );
    const dto = await validated(PublicBookingDto, entered as Record<string, string>);
    if (Array.isArray(dto)) return again(dto);
    try {
      const booked = await this.booking.book(scheduler, dto);
      auditAs(request, scheduler, booked.id);
      return confirmationPage(look, { ...step, start: booked.datetime, manageUrl: booked.manageUrl });
    } catch (err) {
      if (err instanceof ApiException && err.code === 'slot_unavailable') {
        void reply.status(409);
        return this.times(reply, scheduler, { provider: step.provider.id }, TAKEN);
      }
      return again(fieldErrors(err));
    }
  }

  /** The practice's look, with the page's headers set from it. */
  private async prepare(reply: FastifyReply, scheduler: SchedulerEntity): Promise<PageLook> {
    const look = await this.settings.pageLook(scheduler);
    asPage(reply, look, look.embedOrigins);
    return look;
  }
}
