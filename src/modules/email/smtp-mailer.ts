import { Readable } from 'node:stream';
import { parseConnectionUrl } from 'nodemailer/lib/shared';
import SMTPConnection from 'nodemailer/lib/smtp-connection';
import { TransportError } from '../../common/messaging';

/** What one SMTP transaction ended with, when the server accepted the message. */
export interface SmtpAccepted {
  /** The server's reply to the end of DATA (`250 2.0.0 Ok: queued as …`). */
  response: string;
  /** The id the server gave the message, when its reply names one. */
  serverMessageId: string | null;
}

/**
 * Where a failed transaction stood. `before-data`: the message itself never went out (the connection,
 * the envelope or the DATA command failed), so the server holds nothing. `rejected`: the server answered
 * the end of DATA with an error (4xx: not taken, may be retried; 5xx: refused for good). `unknown`: the
 * message went out and no answer came back (connection lost, timeout): the server may or may not have it.
 */
export type SmtpFailureStage = 'before-data' | 'rejected' | 'unknown';

export class SmtpSendError extends TransportError {
  constructor(
    message: string,
    readonly stage: SmtpFailureStage,
    /** The SMTP reply code, when the server answered with one. */
    readonly responseCode: number | null,
    /** True when retrying cannot help (a 5xx reply). */
    permanent: boolean,
  ) {
    super(message, permanent, responseCode ? `SMTP ${responseCode}` : 'SMTP connection error');
    this.name = 'SmtpSendError';
  }
}

type Connection = InstanceType<typeof SMTPConnection>;

interface Slot {
  connection: Connection;
  messages: number;
  /** Whether it sat in the pool since its last message: the server may have dropped it meanwhile. */
  reused: boolean;
}

/** Timeouts: a stalled server must not hold a job past its queue lock (30 s). */
const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 };
/** A connection is closed after this many messages, as nodemailer's pool does, to bound server-side session state. */
const MAX_MESSAGES_PER_CONNECTION = 100;

/**
 * A small pool of SMTP connections (nodemailer's SMTPConnection), one message per connection at a time.
 * A connection that the server (or our own socket timeout) closed while it sat idle is never handed out,
 * and one that turns out to be gone when its next message starts costs that message nothing: the message
 * goes out on a new connection, since the server held nothing of it. nodemailer's own pool is not used
 * because it re-sends a message on another connection by itself when one closes mid-transaction, which
 * would hide from the caller that the server may already have it.
 */
export class SmtpMailer {
  private readonly options: SMTPConnection.Options;
  private readonly auth?: SMTPConnection.AuthenticationType;
  private readonly idle: Slot[] = [];
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

  /** Sends one message; answers the server's acceptance or throws an SmtpSendError that says how far it got. */
  async send(envelope: { from: string; to: string }, raw: Buffer): Promise<SmtpAccepted> {
    const slot = await this.acquire(false);
    try {
      return await this.transact(slot, envelope, raw);
    } catch (err) {
      if (!(err instanceof SmtpSendError) || !slot.reused || !droppedWhileIdle(err)) throw err;
      // The server ended the session while it was idle (its idle timeout) and we learnt it only now:
      // nothing of this message reached it, so it goes out on a new connection without costing a try.
      return this.transact(await this.acquire(true), envelope, raw);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const slot of this.idle.splice(0)) slot.connection.quit();
    for (const wake of this.waiting.splice(0)) wake();
  }

  private async transact(slot: Slot, envelope: { from: string; to: string }, raw: Buffer): Promise<SmtpAccepted> {
    let bodySent = false;
    // SMTPConnection reads the message only once the server has said 354 to DATA, and writes the
    // final dot right after it: from then on the server may have the message.
    const body = new Readable({
      read() {
        if (bodySent) return;
        bodySent = true;
        this.push(raw);
        this.push(null);
      },
    });
    try {
      const info = await new Promise<SMTPConnection.SentMessageInfo>((resolve, reject) =>
        slot.connection.send({ from: envelope.from, to: [envelope.to] }, body, (err, result) => (err ? reject(err) : resolve(result))),
      );
      slot.messages++;
      this.release(slot);
      return { response: info.response ?? '', serverMessageId: info.serverMessageId ?? null };
    } catch (err) {
      this.discard(slot);
      throw toSendError(err, bodySent);
    }
  }

  /**
   * A live idle connection, else a new one when the pool has room, else the next one released. `fresh`
   * skips the idle ones (they sat as long as the one that just failed) and closes one if that makes room.
   */
  private async acquire(fresh: boolean): Promise<Slot> {
    for (;;) {
      if (this.closed) throw new SmtpSendError('the mailer is closed', 'before-data', null, false);
      if (!fresh) {
        const reused = this.takeIdle();
        if (reused) return reused;
      } else if (this.open >= this.size) {
        const spare = this.idle.shift();
        if (spare) this.drop(spare);
      }
      if (this.open < this.size) {
        this.open++;
        try {
          return { connection: await this.connect(), messages: 0, reused: false };
        } catch (err) {
          this.open--;
          this.wakeOne();
          throw toSendError(err, false);
        }
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  /** The most recently used idle connection that is still open; closed ones found on the way are let go. */
  private takeIdle(): Slot | undefined {
    for (let slot = this.idle.pop(); slot; slot = this.idle.pop()) {
      if (isUsable(slot.connection)) {
        slot.reused = true;
        return slot;
      }
      this.drop(slot);
    }
    return undefined;
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
        // Later errors surface through the send that is running, or end an idle connection.
        connection.on('error', () => undefined);
        // Closed while idle (the server's idle timeout, or our socket timeout): out of the pool at once.
        connection.once('end', () => this.forgetIdle(connection));
        resolve(connection);
      };
    });
  }

  private release(slot: Slot): void {
    if (this.closed || !isUsable(slot.connection) || slot.messages >= MAX_MESSAGES_PER_CONNECTION) {
      this.discard(slot);
      return;
    }
    this.idle.push(slot);
    this.wakeOne();
  }

  /** Closes a connection whose transaction did not finish cleanly: a half-sent DATA is never ended. */
  private discard(slot: Slot): void {
    this.drop(slot);
    this.wakeOne();
  }

  /** Closes a connection that is in no list any more and frees its place in the pool. */
  private drop(slot: Slot): void {
    slot.connection.close();
    this.open--;
  }

  private forgetIdle(connection: Connection): void {
    const at = this.idle.findIndex((slot) => slot.connection === connection);
    if (at < 0) return; // in use: its send reports the failure, and discards it
    this.idle.splice(at, 1);
    this.open--;
    this.wakeOne();
  }

  private wakeOne(): void {
    this.waiting.shift()?.();
  }
}

/** Open, and not closing: SMTPConnection refuses to send over anything else. */
function isUsable(connection: Connection): boolean {
  const internals = connection as unknown as { _closing?: boolean; _socket?: { destroyed?: boolean; writable?: boolean } };
  return !connection.destroyed && !internals._closing && !internals._socket?.destroyed && internals._socket?.writable !== false;
}

/**
 * A failure before the message went out with no reply code, or with 421 (the server closing the session):
 * what a connection the server dropped while idle looks like when the next message starts on it.
 */
function droppedWhileIdle(err: SmtpSendError): boolean {
  return err.stage === 'before-data' && (err.responseCode === null || err.responseCode === 421);
}

function toSendError(err: unknown, bodySent: boolean): SmtpSendError {
  const { message, responseCode } = (err ?? {}) as { message?: string; responseCode?: number };
  const text = oneLine(message ?? String(err));
  if (!bodySent) return new SmtpSendError(text, 'before-data', responseCode ?? null, isPermanent(responseCode));
  if (responseCode) return new SmtpSendError(text, 'rejected', responseCode, isPermanent(responseCode));
  return new SmtpSendError(text, 'unknown', null, false);
}

function isPermanent(code: number | undefined): boolean {
  return code !== undefined && code >= 500 && code !== 503;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, 300);
}
