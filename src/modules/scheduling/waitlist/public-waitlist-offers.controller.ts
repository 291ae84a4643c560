import { auditAs, Audited } from '../../../common/audit/audited.decorator';
import { Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../../../common/auth/route-policy.decorator';
import { ApiErrors } from '../../../common/http/openapi/openapi';
import { acceptsHtml, asPage, html, htmlPage, SafeHtml } from '../../../common/http/responses/html-page';
import { apiPath, NoStore } from '../../../common/http/responses/response-headers';
import { SettingsService } from '../../settings';
import { AppointmentsService } from '../appointments/appointments.service';
import { SelfServiceService } from '../self-service/self-service.service';
import { AcceptedWaitlistOfferDto, PublicWaitlistOfferDto } from './dto/waitlist.dto';
import { LinkedOffer, WaitlistOffers } from './waitlist-offers.service';

const PUBLIC =
  "No API key: the token of the offer's link (16 letters and digits, random; an altered or unknown token is 404). An offer past its expiresAt (by the tenant's clock), or withdrawn, is 410 `offer_expired`. Limited per client IP. CORS open.";
const TOKEN = { name: 'token', description: "The token of the offer's link, as its message gave it" };

/** A patient's waitlist offer link: no key; everything runs in the offer's tenant and mode. */
@ApiTags('Patient self-service')
@Controller('public/waitlist-offers')
@Public()
@NoStore()
export class PublicWaitlistOffersController {
  constructor(
    private readonly offers: WaitlistOffers,
    private readonly appointments: AppointmentsService,
    private readonly selfService: SelfServiceService,
    private readonly settings: SettingsService,
  ) {}

  @Get(':token')
  @ApiOperation({
    operationId: 'getWaitlistOffer',
    summary: 'A waitlist offer by its link',
    description: `The time offered and until when it is kept (no patient data). With \`Accept: text/html\`, a page with Accept and Decline buttons (opening it changes nothing). ${PUBLIC}`,
  })
  @ApiParam(TOKEN)
  @ApiProduces('application/json', 'text/html')
  @ApiOkResponse({ type: PublicWaitlistOfferDto })
  @ApiErrors('offer_expired')
  async view(
    @Param('token') token: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<PublicWaitlistOfferDto | string> {
    const linked = await this.offers.require(token);
    const view = await this.offers.view(linked);
    if (!acceptsHtml(request.headers.accept)) return view;
    const action = (what: string): string => apiPath('public', 'waitlist-offers', token, what);
    const button = (what: string, label: string): SafeHtml =>
      html`<form method="post" action="${action(what)}"><button type="submit">${label}</button></form>`;
    const body =
      view.status === 'pending'
        ? html`<p>An earlier time is free: ${describe(view)}.</p>
            <p>We keep it for you until ${localTime(view.expiresAt, view.timezone)}.</p>
            <div class="row">${button('accept', 'Accept this time')} ${button('decline', 'Decline')}</div>`
        : html`<p>This offer of ${describe(view)} is ${view.status}.</p>`;
    return this.page(reply, linked, 'An earlier appointment for you', body);
  }

  @Post(':token/accept')
  @HttpCode(201)
  @Audited('waitlist.public_accept')
  @RouteConfig({ formBody: true })
  @ApiOperation({
    operationId: 'acceptWaitlistOffer',
    summary: 'Accept a waitlist offer',
    description: `201 with the appointment: the held time booked for the patient, or (for an entry with \`appointmentId\`) their appointment moved to it (\`appointment.rescheduled\`, source \`patient_link\`). The entry becomes \`booked\`, the offer \`accepted\` (\`waitlist.accepted\`); accepting it again answers the same appointment. The page's button posts a form; it then gets a page back. ${PUBLIC}`,
  })
  @ApiParam(TOKEN)
  @ApiCreatedResponse({ type: AcceptedWaitlistOfferDto })
  @ApiErrors('offer_expired', 'slot_unavailable', 'change_window_closed')
  async accept(
    @Param('token') token: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<AcceptedWaitlistOfferDto | string> {
    const linked = await this.offers.require(token);
    // Keyless: audited in the offer's tenant and mode, naming the offer.
    auditAs(request, linked.scope, linked.offer.id);
    const appointment = await this.offers.accept(linked);
    const subject = { ...linked.scope, appointmentId: appointment.id };
    const view = await this.selfService.view({ subject, ...(await this.appointments.getWithProvider(linked.scope, appointment.id)) });
    const accepted = { ...view, manageUrl: appointment.manageUrl };
    if (!acceptsHtml(request.headers.accept)) return accepted;
    return this.page(
      reply,
      linked,
      'Your appointment is booked',
      html`<p>
          <strong>It is yours:</strong> ${view.appointmentTypeName ?? 'Appointment'} with ${view.providerName},
          ${localTime(view.datetime, view.timezone)} (${view.timezone}).
        </p>
        <p><a data-manage-url href="${accepted.manageUrl}">See, move or cancel it</a></p>`,
    );
  }

  @Post(':token/decline')
  @HttpCode(200)
  @Audited('waitlist.public_decline')
  @RouteConfig({ formBody: true })
  @ApiOperation({
    operationId: 'declineWaitlistOffer',
    summary: 'Decline a waitlist offer',
    description: `200 with the offer, now \`declined\` (\`waitlist.declined\`): its hold is released and the time goes to the next fitting entry; the patient's entry waits again for other times. Declining it again changes nothing. ${PUBLIC}`,
  })
  @ApiParam(TOKEN)
  @ApiOkResponse({ type: PublicWaitlistOfferDto })
  @ApiErrors('offer_expired')
  async decline(
    @Param('token') token: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<PublicWaitlistOfferDto | string> {
    const linked = await this.offers.require(token);
    auditAs(request, linked.scope, linked.offer.id);
    const view = await this.offers.decline(linked);
    if (!acceptsHtml(request.headers.accept)) return view;
    return this.page(
      reply,
      linked,
      'Offer declined',
      html`<p>You declined ${describe(view)}. You stay on the waitlist for other times.</p>`,
    );
  }

  private async page(reply: FastifyReply, linked: LinkedOffer, title: string, body: SafeHtml): Promise<string> {
    const look = await this.settings.pageLook(linked.scope);
    asPage(reply, look);
    return htmlPage(
      title,
      html`<h1>${title}</h1>
        ${body}`,
      look,
    );
  }
}

function describe(view: PublicWaitlistOfferDto): SafeHtml {
  return html`${view.appointmentTypeName ?? 'an appointment'} with ${view.providerName} at ${view.practiceName},
  ${localTime(view.datetime, view.timezone)} (${view.timezone})`;
}

function localTime(iso: string, timezone: string): string {
  return new Date(iso).toLocaleString('en-US', { timeZone: timezone, dateStyle: 'full', timeStyle: 'short' });
}
