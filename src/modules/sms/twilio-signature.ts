import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import twilio from 'twilio';
import { problemOf } from '../../common/http/errors/problem';
import { AppConfig } from '../../config/app-config';

/** How every Twilio webhook is authenticated, for the OpenAPI descriptions of its routes. */
export const TWILIO_SIGNED =
  'No API key: Twilio signs each request (`X-Twilio-Signature`, HMAC-SHA1 of PUBLIC_URL + this path and the form fields under TWILIO_AUTH_TOKEN), checked with the `twilio` package; a missing or bad signature is 403 `invalid_signature`. Limited per client IP like every public route.';

/** The check every Twilio webhook (a status callback, an inbound text) passes before anything is read. */
@Injectable()
export class TwilioSignature {
  constructor(private readonly config: AppConfig) {}

  /**
   * Twilio signs the URL it called (our PUBLIC_URL, the path and any query) and the form fields. Without
   * an auth token nothing can be verified, so nothing is accepted.
   */
  verify(request: FastifyRequest, signature: string | undefined, fields: Record<string, string>): void {
    const token = this.config.sms.twilio?.authToken;
    const url = `${this.config.http.publicUrl}${request.url}`;
    if (!token || !signature || !twilio.validateRequest(token, signature, url, fields)) {
      throw problemOf('invalid_signature', 'The request does not carry a valid X-Twilio-Signature');
    }
  }
}
