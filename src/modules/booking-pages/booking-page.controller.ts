import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiConsumes, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Audited } from '../../common/audit/audited.decorator';
import { Public } from '../../common/auth/route-policy.decorator';
import { IdParam } from '../../common/http/requests/id-param';
import { NoStore } from '../../common/http/responses/response-headers';
import { BookingPageService } from './booking-page.service';

const PAGE =
  "A step of the hosted booking page (GET /public/schedulers/{id} with `Accept: text/html`): a browser's form post, answered with the next page (HTML). No API key; limited per client IP.";
const HTML_ANSWER = { description: 'The next page', content: { 'text/html': { schema: { type: 'string' } } } };

/** The hosted booking page's form posts: a time picked (held), then the details form. */
@ApiTags('Schedulers')
@Controller('public/schedulers')
@Public()
@NoStore()
export class BookingPageController {
  constructor(private readonly page: BookingPageService) {}

  @Post(':id/page/hold')
  @HttpCode(200)
  @RouteConfig({ formBody: 'fields' })
  @ApiOperation({
    operationId: 'holdBookingPageTime',
    summary: 'Booking page: hold a picked time',
    description: `Form fields \`datetime\` and \`providerId\` (a time button of the page). Holds the time and answers the details form; a time taken meanwhile answers the times again, saying so. ${PAGE}`,
  })
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiProduces('text/html')
  @ApiOkResponse(HTML_ANSWER)
  hold(@IdParam() id: string, @Body() fields: unknown, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    return this.page.hold(reply, id, textFields(fields));
  }

  @Post(':id/page/book')
  @HttpCode(201)
  @Audited('appointment.public_book', { idParam: 'appointmentId' })
  @RouteConfig({ formBody: 'fields' })
  @ApiOperation({
    operationId: 'bookBookingPageTime',
    summary: 'Booking page: book the held time',
    description: `Form fields \`firstName\`, \`lastName\`, \`email\`, \`phone\` and the held time's. 201 with the confirmation page (the time, the calendar file, the manage link). A refused entry answers 400 with the form again, the message beside the field and every entry kept; a filled-in honeypot field (\`website\`) books nothing and answers a plain acknowledgement. ${PAGE}`,
  })
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiProduces('text/html')
  @ApiOkResponse(HTML_ANSWER)
  book(
    @IdParam() id: string,
    @Body() fields: unknown,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    return this.page.book(request, reply, id, textFields(fields));
  }
}

/** A form's fields (a JSON object's text members, when a client sends JSON instead); anything else is left out. */
function textFields(body: unknown): Record<string, string> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return {};
  return Object.fromEntries(Object.entries(body).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}
