import { Readable } from 'node:stream';
import { parseConnectionUrl } from 'nodemailer/lib/shared';
import SMTPConnection from 'nodemailer/lib/smtp-connection';

/** What one SMTP transaction ended with, when the server accepted the message. */
export interface SmtpAccepted {
  /** The server's reply to the end of DATA (`250 2.0.0 Ok: queued as …`). */
  response: string;
  /** The id the server gave the message, when its reply names one. */
  serverMessageId: string | null;
}

/**
 * Where a failed transaction stood. `before-hand-over`: the final dot of DATA never went out, so the
 * server has discarded whatever it got and sending again is safe. `rejected`: the server answered the
 * end of DATA with an error (4xx: not taken, may be retried; 5xx: refused for good). `unknown`: the dot
 * went out and no answer came back (connection lost, timeout) — the server may well have the message.
 */
export type SmtpFailureStage = 'before-hand-over' | 'rejected' | 'unknown';

export class SmtpSendError extends Error {
  constructor(
    message: string,
    readonly stage: SmtpFailureStage,
    /** The SMTP reply code, when the server answered with one. */
    readonly responseCode: number | null,
    /** True when retrying cannot help (a 5xx reply). */
    readonly permanent: boolean,
  ) {
    super(message);
    this.name = 'SmtpSendError';
  }
}

/** The hand-over check said no (the message was taken or settled elsewhere): nothing was sent. */
export class HandOverRefused extends Error {
  constructor() {
    super('hand-over refused');
    this.name = 'HandOverRefused';
  }
}

type Connection = InstanceType<typeof SMTPConnection>;

/** Timeouts: a stalled server must not hold a job past its queue lock (30 s). */
const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 };
/** A connection is closed after this many messages, as nodemailer's pool does, to bound server-side session state. */
const MAX_MESSAGES_PER_CONNECTION = 100;

/**
 * A small pool of SMTP connections (nodemailer's SMTPConnection) that sends each message in two steps:
 * the envelope and the whole body go out, then `handOver()` is awaited, and only when it answers true
 * does the final `.` of DATA follow. Until that dot the server holds nothing (RFC 5321 section 4.1.1.4:
 * a transaction cut short is discarded), so a caller that records the hand-over before answering true
 * knows which messages might have reached the server: never twice is a matter of never handing one
 * over twice. nodemailer's own pool cannot do this: it reads the message before the DATA command, and
 * re-sends a message on another connection when one closes mid-transaction.
 */
export class SmtpMailer {
  private readonly options: SMTPConnection.Options;
  private readonly auth?: SMTPConnection.AuthenticationType;
  private readonly idle: { connection: Connection; messages: number }[] = [];
  private readonly waiting: (() => void)[] = [];
  private open = 0;
  private closed = false;

  constructor(
    url: string,
    private readonly size: number,
  ) {
    const { auth, ...options } = parseConnectionUrl(url) as SMTPConnection.Options & { auth?: { user: string; pass: string } };
    this.options = { ...options, ...TIMEOUTS };
    this.auth = auth?.user ? { credentials: auth } : undefined;
  }

  async send(envelope: { from: string; to: string }, raw: Buffer, handOver: () => Promise<boolean>): Promise<SmtpAccepted> {
    const slot = await this.acquire();
    let handedOver = false;
    let started = false;
    const gated = new Readable({
      read() {
        if (started) return;
        started = true;
        // SMTPConnection reads the body only once the server has said 354 to DATA: send all of it,
        // then let the final dot out only once the hand-over is recorded.
        this.push(raw);
        handOver().then(
          (ok) => {
            if (!ok) return void this.destroy(new HandOverRefused());
            handedOver = true;
            this.push(null);
          },
          (err: Error) => this.destroy(err),
        );
      },
    });
    try {
      const info = await new Promise<SMTPConnection.SentMessageInfo>((resolve, reject) =>
        slot.connection.send({ from: envelope.from, to: [envelope.to] }, gated, (err, result) => (err ? reject(err) : resolve(result))),
      );
      slot.messages++;
      this.release(slot);
      return { response: info.response ?? '', serverMessageId: info.serverMessageId ?? null };
    } catch (err) {
      this.discard(slot);
      // A refused or failed hand-over destroys the body: no dot went out.
      if (gated.errored) throw gated.errored instanceof HandOverRefused ? gated.errored : toSendError(gated.errored, false);
      throw toSendError(err, handedOver);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const slot of this.idle.splice(0)) slot.connection.quit();
    for (const wake of this.waiting.splice(0)) wake();
  }

  private async acquire(): Promise<{ connection: Connection; messages: number }> {
    for (;;) {
      if (this.closed) throw new SmtpSendError('the mailer is closed', 'before-hand-over', null, false);
      const reused = this.idle.pop();
      if (reused) return reused;
      if (this.open < this.size) {
        this.open++;
        try {
          return { connection: await this.connect(), messages: 0 };
        } catch (err) {
          this.open--;
          this.wakeOne();
          throw toSendError(err, false);
        }
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  private connect(): Promise<Connection> {
    return new Promise((resolve, reject) => {
      const connection = new SMTPConnection(this.options);
      let settled = false;
      const fail = (err: Error): void => {
        if (settled) return;
        settled = true;
        connection.close();
        reject(err);
      };
      connection.once('error', fail);
      connection.connect((err) => {
        if (err) return fail(err);
        if (!this.auth) return done();
        connection.login(this.auth, (loginErr) => (loginErr ? fail(loginErr) : done()));
      });
      const done = (): void => {
        settled = true;
        connection.removeListener('error', fail);
        // Later errors surface through the send that is running, or mark an idle connection dead.
        connection.on('error', () => undefined);
        resolve(connection);
      };
    });
  }

  private release(slot: { connection: Connection; messages: number }): void {
    const alive = !(slot.connection as unknown as { _destroyed?: boolean })._destroyed;
    if (this.closed || !alive || slot.messages >= MAX_MESSAGES_PER_CONNECTION) {
      this.discard(slot);
      return;
    }
    this.idle.push(slot);
    this.wakeOne();
  }

  /** Closes a connection whose transaction did not finish cleanly: a half-sent DATA is never ended. */
  private discard(slot: { connection: Connection }): void {
    slot.connection.close();
    this.open--;
    this.wakeOne();
  }

  private wakeOne(): void {
    this.waiting.shift()?.();
  }
}

function toSendError(err: unknown, handedOver: boolean): SmtpSendError {
  const { message, responseCode } = (err ?? {}) as { message?: string; responseCode?: number };
  const text = oneLine(message ?? String(err));
  if (!handedOver) return new SmtpSendError(text, 'before-hand-over', responseCode ?? null, isPermanent(responseCode));
  if (responseCode) return new SmtpSendError(text, 'rejected', responseCode, isPermanent(responseCode));
  return new SmtpSendError(text, 'unknown', null, false);
}

function isPermanent(code: number | undefined): boolean {
  return code !== undefined && code >= 500 && code !== 503;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, 300);
}
