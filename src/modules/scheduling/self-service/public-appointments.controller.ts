import { Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiBody, ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { auditAs, Audited } from '../../../common/audit/audited.decorator';
import { Public } from '../../../common/auth/route-policy.decorator';
import { acceptsHtml, asPage, html, htmlPage, SafeHtml } from '../../../common/http/responses/html-page';
import { ApiErrors } from '../../../common/http/openapi/openapi';
import { ValidationFailedException } from '../../../common/http/errors/problem';
import { apiPath, NoStore } from '../../../common/http/responses/response-headers';
import { isInstant } from '../is-instant';
import {
  PublicAppointmentDto,
  PublicManageAvailabilityDto,
  PublicManageAvailabilityQueryDto,
  PublicRescheduleDto,
} from './dto/public-appointment.dto';
import { Managed, SelfServiceService } from './self-service.service';

/** How many free times the page offers to reschedule to. */
const PAGE_SLOTS = 6;
const PUBLIC =
  "No API key: the token of the appointment's manageUrl (its manage id, or an earlier link's signed token; an altered or unknown token is 404). Limited per client IP (RATE_LIMIT_IP_PER_SECOND / _PER_HOUR; 429 with Retry-After). CORS open.";
const TOKEN = {
  name: 'token',
  description:
    "The token of the appointment's manageUrl: its manage id (16 letters and digits, random), or the signed token of a link sent before manage ids",
};
const WINDOW =
  "After changeDeadline (start − the type's cancellationWindowMinutes; 24 hours without a type): 409 `change_window_closed`. A completed, cancelled or no-show appointment: 409 `invalid_transition`.";

/** A patient's manage link: no key; everything runs in the appointment's tenant and mode. */
@ApiTags('Patient self-service')
@Controller('public/appointments')
@Public()
@NoStore()
export class PublicAppointmentsController {
  constructor(private readonly selfService: SelfServiceService) {}

  @Get(':token')
  @ApiOperation({
    operationId: 'getManagedAppointment',
    summary: 'An appointment by its manage link',
    description: `The visit and what the link may still do (no patient data). With \`Accept: text/html\`, a small page with Confirm, Cancel and Reschedule buttons (opening it changes nothing). ${PUBLIC}`,
  })
  @ApiParam(TOKEN)
  @ApiProduces('application/json', 'text/html')
  @ApiOkResponse({ type: PublicAppointmentDto })
  async view(
    @Param('token') token: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<PublicAppointmentDto | string> {
    const managed = await this.selfService.require(token);
    const view = await this.selfService.view(managed);
    if (!acceptsHtml(request.headers.accept)) return view;
    return this.page(reply, token, view, managed, await this.pageSlots(managed, view));
  }

  @Post(':token/confirm')
  @HttpCode(200)
  @Audited('appointment.public_confirm')
  @RouteConfig({ formBody: true })
  @ApiOperation({
    operationId: 'confirmManagedAppointment',
    summary: 'Confirm an appointment (patient link)',
    description: `scheduled → confirmed (\`appointment.confirmed\`, source \`patient_link\`); confirming a confirmed one changes nothing. A completed, cancelled or no-show appointment: 409 \`invalid_transition\`. The page's button posts a form; it then gets the page back. ${PUBLIC}`,
  })
  @ApiParam(TOKEN)
  @ApiOkResponse({ type: PublicAppointmentDto })
  @ApiErrors('invalid_transition')
  async confirm(@Param('token') token: string, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const managed = await this.managed(token, request);
    return this.answer(request, reply, token, managed, await this.selfService.confirm(managed), 'Your appointment is confirmed.');
  }

  @Post(':token/cancel')
  @HttpCode(200)
  @Audited('appointment.public_cancel')
  @RouteConfig({ formBody: true })
  @ApiOperation({
    operationId: 'cancelManagedAppointment',
    summary: 'Cancel an appointment (patient link)',
    description: `To cancelled (\`appointment.cancelled\`, source \`patient_link\`), freeing its time. ${WINDOW} ${PUBLIC}`,
  })
  @ApiParam(TOKEN)
  @ApiOkResponse({ type: PublicAppointmentDto })
  @ApiErrors('invalid_transition', 'change_window_closed')
  async cancel(@Param('token') token: string, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const managed = await this.managed(token, request);
    return this.answer(request, reply, token, managed, await this.selfService.cancel(managed), 'Your appointment is cancelled.');
  }

  @Get(':token/availability')
  @ApiOperation({
    operationId: 'getManagedAppointmentAvailability',
    summary: 'Free times to reschedule to (patient link)',
    description: `The same provider's free slots for the same appointment type (its duration, grid and policies; or the appointment's length without a type), the appointment's own time counted free; a date bound is read in the provider's timezone; at most 31 days. ${PUBLIC}`,
  })
  @ApiParam(TOKEN)
  @ApiOkResponse({ type: PublicManageAvailabilityDto })
  async availability(
    @Param('token') token: string,
    @Query() query: PublicManageAvailabilityQueryDto,
  ): Promise<PublicManageAvailabilityDto> {
    return this.selfService.slots(await this.selfService.require(token), query);
  }

  @Get(':token/calendar.ics')
  @ApiOperation({
    operationId: 'getManagedAppointmentCalendar',
    summary: 'The appointment as an iCalendar event (patient link)',
    description: `What GET /scheduling/appointments/{id}.ics answers, without a key: RFC 5545, one VEVENT in UTC, naming the provider and the practice, not the patient; a change or cancellation re-imports over it (same UID, higher SEQUENCE). ${PUBLIC}`,
  })
  @ApiParam(TOKEN)
  @ApiProduces('text/calendar')
  @ApiOkResponse({ description: 'The iCalendar file', content: { 'text/calendar': { schema: { type: 'string' } } } })
  async calendar(@Param('token') token: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const managed = await this.selfService.require(token);
    void reply
      .type('text/calendar; charset=utf-8')
      .header('content-disposition', `attachment; filename="appointment-${managed.appointment.id}.ics"`);
    return this.selfService.calendar(managed);
  }

  @Post(':token/reschedule')
  @HttpCode(200)
  @Audited('appointment.public_reschedule')
  @RouteConfig({ formBody: true })
  @ApiOperation({
    operationId: 'rescheduleManagedAppointment',
    summary: 'Reschedule an appointment (patient link)',
    description: `Moves it to \`datetime\`, checked like a booking under its type's policies (409 \`slot_unavailable\` with \`alternatives\`) and the exclusion constraint (\`appointment.rescheduled\`, source \`patient_link\`, with the previous time). ${WINDOW} The page's buttons post a form with \`datetime\` in the query string instead. ${PUBLIC}`,
  })
  @ApiParam(TOKEN)
  @ApiBody({ type: PublicRescheduleDto })
  @ApiOkResponse({ type: PublicAppointmentDto })
  @ApiErrors('invalid_transition', 'change_window_closed', 'slot_unavailable')
  async reschedule(@Param('token') token: string, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const datetime = rescheduleTime(request.body, request.query);
    const managed = await this.managed(token, request);
    const moved = await this.selfService.reschedule(managed, { datetime });
    return this.answer(request, reply, token, managed, moved, 'Your appointment is moved.');
  }

  /** The appointment behind the token; the audit entry is then recorded in its tenant and mode, naming it. */
  private async managed(token: string, request: FastifyRequest): Promise<Managed> {
    const managed = await this.selfService.require(token);
    auditAs(request, managed.subject, managed.appointment.id);
    return managed;
  }

  /** JSON for API clients; the page again, with what happened, for the page's own buttons. */
  private async answer(
    request: FastifyRequest,
    reply: FastifyReply,
    token: string,
    managed: Managed,
    view: PublicAppointmentDto,
    done: string,
  ): Promise<PublicAppointmentDto | string> {
    if (!acceptsHtml(request.headers.accept)) return view;
    const moved = { ...managed, appointment: { ...managed.appointment, datetime: view.datetime, status: view.status } };
    return this.page(reply, token, view, managed, await this.pageSlots(moved, view), done);
  }

  /** A few free times of the coming two weeks, when the link may still reschedule. */
  private async pageSlots(managed: Managed, view: PublicAppointmentDto): Promise<string[]> {
    if (!view.canReschedule) return [];
    const { slots } = await this.selfService.slotsFromNow(managed, 14);
    return slots
      .map((s) => s.start)
      .filter((s) => s !== view.datetime)
      .slice(0, PAGE_SLOTS);
  }

  private async page(
    reply: FastifyReply,
    token: string,
    view: PublicAppointmentDto,
    managed: Managed,
    slots: string[],
    done?: string,
  ): Promise<string> {
    const look = await this.selfService.pageLook(managed);
    asPage(reply, look);
    const action = (what: string): string => apiPath('public', 'appointments', token, what);
    const when = localTime(view.datetime, view.timezone);
    const button = (what: string, label: string): SafeHtml =>
      html`<form method="post" action="${action(what)}" class="inline"><button type="submit">${label}</button></form>`;
    const times = slots.map(
      (s) =>
        html`<form method="post" action="${`${action('reschedule')}?datetime=${encodeURIComponent(s)}`}">
          <button type="submit">${localTime(s, view.timezone)}</button>
        </form>`,
    );
    return htmlPage(
      `Your appointment with ${view.practiceName}`,
      html`<h1>Your appointment with ${view.practiceName}</h1>
        ${done ? html`<p><strong>${done}</strong></p>` : html``}
        <p>${view.appointmentTypeName ?? 'Appointment'} with ${view.providerName}, ${when} (${view.timezone}). Status: ${view.status}.</p>
        ${view.canConfirm ? button('confirm', 'Confirm') : html``} ${view.canCancel ? button('cancel', 'Cancel') : html``}
        ${
          view.canReschedule && times.length
            ? html`<h2>Reschedule</h2>
                <div class="row">${join(times)}</div>`
            : html``
        }
        ${view.canCancel || view.status !== 'scheduled' ? html`` : html`<p>To change it now, please contact the practice.</p>`}
        <p><a href="${apiPath('public', 'appointments', token, 'calendar.ics')}" download>Add it to your calendar (.ics)</a></p>`,
      look,
    );
  }
}

/** The new time: a JSON body `{ datetime }`, or (a form post of the page) `datetime` in the query string. */
function rescheduleTime(body: unknown, query: unknown): string {
  if (body === undefined || body === null) {
    const datetime = (query as Record<string, unknown> | undefined)?.datetime;
    if (isInstant(datetime)) return datetime;
    throw new ValidationFailedException([
      { field: 'datetime', message: datetime === undefined ? 'is required' : 'must be a real date-time with Z or an offset' },
    ]);
  }
  if (typeof body !== 'object' || Array.isArray(body))
    throw new ValidationFailedException([{ field: 'body', message: 'must be an object' }]);
  const errors = Object.keys(body)
    .filter((k) => k !== 'datetime')
    .map((field) => ({ field, message: 'is not a known property' }));
  const datetime = (body as { datetime?: unknown }).datetime;
  if (!isInstant(datetime))
    errors.push({ field: 'datetime', message: datetime === undefined ? 'is required' : 'must be a real date-time with Z or an offset' });
  if (errors.length) throw new ValidationFailedException(errors);
  return datetime as string;
}

function localTime(iso: string, timezone: string): string {
  return new Date(iso).toLocaleString('en-US', { timeZone: timezone, dateStyle: 'full', timeStyle: 'short' });
}

function join(parts: SafeHtml[]): SafeHtml {
  return new SafeHtml(parts.map((p) => p.value).join(''));
}
