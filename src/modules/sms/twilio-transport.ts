import twilio from 'twilio';
import type { Twilio } from 'twilio';
import type Response from 'twilio/lib/http/response';
import type RequestClient from 'twilio/lib/base/RequestClient';
import type { SmsSettings } from '../../config/app-config';
import { TransportError } from '../../common/messaging';

type RequestOptions<TData> = RequestClient.RequestOptions<TData>;

/** What one message needs from the provider. */
export interface OutgoingSms {
  to: string;
  from: string;
  body: string;
  /** Where the provider reports the message's later status (delivered, undelivered, failed). */
  statusCallback?: string;
}

/**
 * A try the provider did not accept. `permanent`: it refused the message itself (a 4xx other than 429:
 * a bad number, a blocked recipient), so trying again cannot help; anything else (5xx, 429, a timeout, a
 * lost connection) is worth a retry. The message holds no number or text: it is stored and logged.
 */
export class SmsProviderError extends TransportError {
  constructor(message: string, permanent: boolean) {
    super(message, permanent);
    this.name = 'SmsProviderError';
  }
}

/**
 * Twilio's Messages API through the official package. With TWILIO_API_BASE_URL (tests only) every request
 * the package makes goes to that origin instead of Twilio's hosts, path and query kept, so that tests
 * talk to a local server speaking the same API (test/helpers/fake-twilio.ts).
 */
export class TwilioTransport {
  private readonly client: Twilio;

  constructor(settings: NonNullable<SmsSettings['twilio']>, timeoutMs: number) {
    const base = settings.apiBaseUrl;
    class RedirectingRequestClient extends twilio.RequestClient {
      override request<TData>(opts: RequestOptions<TData>): Promise<Response<TData>> {
        if (base) {
          const uri = new URL(opts.uri);
          opts.uri = `${base}${uri.pathname}${uri.search}`;
        }
        return super.request(opts);
      }
    }
    // keepAlive: one worker sends many messages to one host; autoRetry stays off, our queue retries.
    this.client = twilio(settings.accountSid, settings.authToken, {
      httpClient: new RedirectingRequestClient({ timeout: timeoutMs, keepAlive: true }),
    });
  }

  /** Sends one message; answers the provider's message sid, or throws SmsProviderError. */
  async send(message: OutgoingSms): Promise<string> {
    try {
      const created = await this.client.messages.create({
        to: message.to,
        from: message.from,
        body: message.body,
        ...(message.statusCallback ? { statusCallback: message.statusCallback } : {}),
      });
      return created.sid;
    } catch (err) {
      throw providerError(err);
    }
  }
}

function providerError(err: unknown): SmsProviderError {
  const { status, code } = (err ?? {}) as { status?: unknown; code?: unknown };
  if (typeof status === 'number') {
    const permanent = status >= 400 && status < 500 && status !== 429;
    const twilioCode = typeof code === 'number' ? ` (error ${code})` : '';
    return new SmsProviderError(`Twilio answered ${status}${twilioCode}`, permanent);
  }
  // No answer: a timeout, a refused or lost connection (axios's and the socket's codes name no data).
  const label = typeof code === 'string' && /^[A-Z0-9_]{1,32}$/.test(code) ? code : 'no answer';
  return new SmsProviderError(`Twilio could not be reached: ${label}`, false);
}
