import { randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A message the fake accepted, as Twilio's Messages API received it. */
export interface ReceivedSms {
  sid: string;
  accountSid: string;
  /** The form fields: To, From, Body, StatusCallback … */
  fields: Record<string, string>;
  receivedAt: number;
}

/**
 * What the fake does with the next request: answer it as Twilio does (`accept`), fail it with a status and
 * Twilio's error body, or hold it for `delayMs` first (a client that gives up meanwhile sees a timeout;
 * a request whose client went away before the answer is not accepted: nothing is recorded).
 */
export type FakeTwilioAnswer = { accept: true; delayMs?: number } | { accept: false; status: number; code?: number; delayMs?: number };

export const FAKE_TWILIO_SID = `AC${'f'.repeat(32)}`;
export const FAKE_TWILIO_TOKEN = 'fake-twilio-auth-token-0123456789';

/**
 * A local HTTP server speaking Twilio's Messages API: `POST /2010-04-01/Accounts/{sid}/Messages.json` with a
 * form body and HTTP Basic auth (the account SID and auth token, checked: 401 otherwise), answered 201 with a
 * message resource (`sid`, `status: "queued"`, …). `answer` decides each request; `received` records what
 * it accepted, in order.
 */
export class FakeTwilio {
  readonly received: ReceivedSms[] = [];
  /** Requests that arrived, accepted or not. */
  requests = 0;
  answer: (fields: Record<string, string>) => FakeTwilioAnswer = () => ({ accept: true });
  private server!: Server;

  constructor(
    readonly accountSid = FAKE_TWILIO_SID,
    readonly authToken = FAKE_TWILIO_TOKEN,
  ) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    // Each worker keeps connections alive; the test must not wait for them to close.
    this.server.keepAliveTimeout = 1_000;
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The variables that point the app at this fake. */
  env(from = '+15005550006'): Record<string, string> {
    return {
      SMS_PROVIDER: 'twilio',
      TWILIO_ACCOUNT_SID: this.accountSid,
      TWILIO_AUTH_TOKEN: this.authToken,
      TWILIO_FROM: from,
      TWILIO_API_BASE_URL: this.url,
    };
  }

  /** The messages accepted for this number. */
  to(number: string): ReceivedSms[] {
    return this.received.filter((m) => m.fields.To === number);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const match = /^\/2010-04-01\/Accounts\/(AC[0-9a-fA-F]{32})\/Messages\.json$/.exec(req.url ?? '');
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== 'POST' || !match)
      return json(res, 404, { code: 20404, message: 'The requested resource was not found', status: 404 });
    this.requests++;
    const expected = `Basic ${Buffer.from(`${this.accountSid}:${this.authToken}`).toString('base64')}`;
    if (req.headers.authorization !== expected || match[1] !== this.accountSid) {
      return json(res, 401, { code: 20003, message: 'Authenticate', status: 401 });
    }
    if (!String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded')) {
      return json(res, 400, { code: 20001, message: 'Expected a form body', status: 400 });
    }
    const fields = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
    const answer = this.answer(fields);
    if (answer.delayMs) {
      await new Promise((r) => setTimeout(r, answer.delayMs));
      // The client gave up (timeout) or died: Twilio would not have answered it, and neither do we.
      if (res.destroyed || req.socket.destroyed) return;
    }
    if (!answer.accept) return json(res, answer.status, { code: answer.code ?? 20500, message: 'Fake failure', status: answer.status });
    const sid = `SM${randomBytes(16).toString('hex')}`;
    this.received.push({ sid, accountSid: this.accountSid, fields, receivedAt: Date.now() });
    const now = new Date().toUTCString();
    json(res, 201, {
      sid,
      account_sid: this.accountSid,
      to: fields.To,
      from: fields.From,
      body: fields.Body,
      status: 'queued',
      num_segments: '1',
      direction: 'outbound-api',
      date_created: now,
      date_updated: now,
      uri: `/2010-04-01/Accounts/${this.accountSid}/Messages/${sid}.json`,
    });
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
