import { Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Audited, auditAs } from '../../common/audit/audited.decorator';
import { Public } from '../../common/auth/route-policy.decorator';
import { acceptsHtml, asPage, html, htmlPage } from '../../common/http/responses/html-page';
import { ResourceNotFoundProblem } from '../../common/http/errors/problem';
import { apiPath } from '../../common/http/responses/response-headers';
import { PatientsService } from '../patients';
import { SettingsService } from '../settings';
import { UnsubscribedDto } from './dto/unsubscribe.dto';
import { UnsubscribeSubject, UnsubscribeTokens } from './unsubscribe-tokens.service';

const HTML = 'text/html; charset=utf-8';
const UNSUBSCRIBED = 'Unsubscribed: no more email will be sent to this address by the practice';

@ApiTags('Email')
@Controller('public/unsubscribe')
export class UnsubscribeController {
  constructor(
    private readonly tokens: UnsubscribeTokens,
    private readonly patients: PatientsService,
    private readonly settings: SettingsService,
  ) {}

  @Get(':token')
  @Public()
  @ApiOperation({
    operationId: 'showUnsubscribePage',
    summary: 'The page an unsubscribe link opens',
    description:
      'What a patient sees on clicking the `List-Unsubscribe` link: a small HTML page naming the practice, with one button that posts the one-click unsubscribe (`POST` of the same URL). Opening it changes nothing (RFC 8058: mail scanners and link previews open links). An altered or unknown token is 404: an HTML page saying the link is invalid when the client asks for HTML, problem+json otherwise. Limited per client IP like every public route.',
  })
  @ApiParam({ name: 'token', description: 'The signed token from the List-Unsubscribe link' })
  @ApiProduces('text/html')
  @ApiOkResponse({ description: 'The page, with its one button', content: { 'text/html': { schema: { type: 'string' } } } })
  async page(
    @Param('token') token: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    const subject = await this.subject(token);
    if (!subject) return this.invalid(request, reply);
    const look = await this.settings.pageLook(subject);
    const practice = look.practiceName;
    asPage(reply, look);
    return htmlPage(
      `Unsubscribe from ${practice}`,
      html`<h1>Unsubscribe from ${practice}</h1>
        <p>Press the button to stop email from ${practice} to this address. Appointment details stay as they are.</p>
        <form method="post" action="${apiPath('public', 'unsubscribe', token)}">
          <input type="hidden" name="List-Unsubscribe" value="One-Click" />
          <button type="submit">Unsubscribe</button>
        </form>`,
      look,
    );
  }

  @Post(':token')
  @HttpCode(200)
  @Public()
  @Audited('patient.email_opt_out')
  @RouteConfig({ formBody: true })
  @ApiOperation({
    operationId: 'unsubscribeFromEmail',
    summary: 'One-click unsubscribe (RFC 8058)',
    description:
      "The link in the `List-Unsubscribe` header of every message sent to a patient (with `List-Unsubscribe-Post: List-Unsubscribe=One-Click`), and the button of its page (`GET` of the same URL). No API key: the token is signed (HMAC under the application secret) and names one patient, whose `emailOptOut` becomes true; their later sends and sequence steps end `suppressed`. Mail clients post `List-Unsubscribe=One-Click` as application/x-www-form-urlencoded or multipart/form-data; the body is not needed and not read. A client that asks for HTML (the page's button) gets a page saying it is done, others this JSON. Repeating it is harmless. An altered or unknown token is 404. Limited per client IP like every public route.",
  })
  @ApiParam({ name: 'token', description: 'The signed token from the List-Unsubscribe link' })
  @ApiOkResponse({ type: UnsubscribedDto })
  async unsubscribe(
    @Param('token') token: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<UnsubscribedDto | string> {
    const subject = this.tokens.verify(token);
    // A patient deleted since the message was sent has nothing left to opt out of: as unknown as a forged token.
    if (!subject || !(await this.patients.setConsent(subject, subject.patientId, { emailOptOut: true })))
      return this.invalid(request, reply);
    // A consent change is audited whatever made it: here in the patient's tenant and mode, with no key.
    auditAs(request, subject, subject.patientId);
    if (!acceptsHtml(request.headers.accept)) return { message: UNSUBSCRIBED };
    const look = await this.settings.pageLook(subject);
    asPage(reply, look);
    return htmlPage(
      'Unsubscribed',
      html`<h1>You are unsubscribed</h1>
        <p>${look.practiceName} will send no more email to this address.</p>`,
      look,
    );
  }

  /** The patient a token names, if the token is this API's and the patient still exists. */
  private async subject(token: string): Promise<UnsubscribeSubject | null> {
    const subject = this.tokens.verify(token);
    return subject && (await this.patients.find(subject, subject.patientId)) ? subject : null;
  }

  /** 404: a page saying the link is invalid for a browser, the problem+json every other client gets. */
  private invalid(request: FastifyRequest, reply: FastifyReply): string {
    if (!acceptsHtml(request.headers.accept)) throw new ResourceNotFoundProblem('The unsubscribe link');
    void reply.status(404).type(HTML).header('cache-control', 'no-store');
    return htmlPage(
      'Invalid unsubscribe link',
      html`<h1>This unsubscribe link is invalid</h1>
        <p>It may have been cut short or altered. Use the link in the latest email you received, or contact the practice.</p>`,
    );
  }
}
