import type { AddressInfo } from 'node:net';
import { SMTPServer, SMTPServerDataStream, SMTPServerSession } from 'smtp-server';

/** One message as the receiver got it: the envelope, the headers and the decoded parts. */
export interface ReceivedEmail {
  from: string;
  to: string[];
  raw: string;
  headers: Record<string, string>;
  html: string | null;
  text: string | null;
  /** The text/calendar part (an .ics), decoded, with its Content-Type. */
  calendar: { contentType: string; body: string } | null;
  /** When its final dot arrived (ms since the epoch). */
  receivedAt: number;
}

/** How the receiver answers the end of DATA: accept, or an SMTP error (`code` 4xx or 5xx). */
export type DataAnswer = { accept: true } | { accept: false; code: number; message: string };

/**
 * A real SMTP server on loopback (the `smtp-server` package) for email tests. It keeps every message
 * whose data arrived in full (the final dot), whatever it answered, as a relay that has accepted
 * responsibility would; `answer` scripts the reply to the end of DATA, and `hold` keeps those replies back
 * (the messages are kept, the sender waits) until `release`.
 */
export class SmtpReceiver {
  readonly received: ReceivedEmail[] = [];
  answer: (email: ReceivedEmail) => DataAnswer = () => ({ accept: true });
  private server!: SMTPServer;
  private counter = 0;
  private held: (() => void)[] | null = null;

  /** Sessions opened so far. */
  connections = 0;

  /**
   * `idleTimeoutMs` ends a session that stays silent that long (421, then close), as relays do;
   * `closeTimeoutMs` bounds how long `stop` waits for a sender's open sessions (a pooled connection).
   */
  async start(port = 0, options: { idleTimeoutMs?: number; closeTimeoutMs?: number } = {}): Promise<this> {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      size: 10 * 1024 * 1024,
      ...(options.idleTimeoutMs ? { socketTimeout: options.idleTimeoutMs } : {}),
      ...(options.closeTimeoutMs ? { closeTimeout: options.closeTimeoutMs } : {}),
      onConnect: (_session, callback) => {
        this.connections++;
        callback();
      },
      onData: (stream, session, callback) => this.onData(stream, session, callback),
    });
    this.server.on('error', () => undefined);
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
    return this;
  }

  get port(): number {
    return (this.server.server.address() as AddressInfo).port;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  /** Received messages whose Message-ID names this message id. */
  byMessageId(id: string): ReceivedEmail[] {
    return this.received.filter((m) => m.headers['message-id']?.startsWith(`<${id}@`));
  }

  /** From now on, replies to the end of DATA wait until `release()`. */
  hold(): void {
    this.held ??= [];
  }

  release(): void {
    const held = this.held ?? [];
    this.held = null;
    for (const reply of held) reply();
  }

  async stop(): Promise<void> {
    this.release();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback: (err?: Error | null, message?: string) => void): void {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const email = {
        ...parseEmail(raw),
        receivedAt: Date.now(),
        from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
        to: session.envelope.rcptTo.map((r) => r.address),
      };
      this.received.push(email);
      const answer = this.answer(email);
      const reply = (): void => {
        if (answer.accept) return callback(null, `Ok: queued as TEST${++this.counter}`);
        const err = Object.assign(new Error(answer.message), { responseCode: answer.code });
        callback(err);
      };
      if (this.held) this.held.push(reply);
      else reply();
    });
  }
}

/** Just enough MIME for tests: top-level headers, and the text/html, text/plain and text/calendar parts decoded. */
export function parseEmail(raw: string): Omit<ReceivedEmail, 'from' | 'to' | 'receivedAt'> {
  const { headers, body } = splitHeaders(raw);
  const parts: { headers: Record<string, string>; body: string }[] = [];
  const walk = (h: Record<string, string>, b: string): void => {
    const boundary = /boundary="?([^";]+)"?/i.exec(h['content-type'] ?? '')?.[1];
    if (!boundary) return void parts.push({ headers: h, body: b });
    for (const chunk of b.split(`--${boundary}`).slice(1)) {
      if (chunk.startsWith('--')) break;
      const part = splitHeaders(chunk.replace(/^\r\n/, ''));
      walk(part.headers, part.body);
    }
  };
  walk(headers, body);
  const partOf = (type: string) => parts.find((p) => (p.headers['content-type'] ?? 'text/plain').startsWith(type));
  const find = (type: string): string | null => {
    const part = partOf(type);
    return part ? decode(part.body, part.headers['content-transfer-encoding'] ?? '7bit') : null;
  };
  const calendar = partOf('text/calendar');
  return {
    raw,
    headers,
    html: find('text/html'),
    text: find('text/plain'),
    calendar: calendar ? { contentType: calendar.headers['content-type'], body: find('text/calendar')! } : null,
  };
}

function splitHeaders(raw: string): { headers: Record<string, string>; body: string } {
  const end = raw.indexOf('\r\n\r\n');
  const head = end < 0 ? raw : raw.slice(0, end);
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { headers, body: end < 0 ? '' : raw.slice(end + 4) };
}

function decode(body: string, encoding: string): string {
  const trimmed = body.replace(/\r\n$/, '');
  if (/base64/i.test(encoding)) return Buffer.from(trimmed.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (/quoted-printable/i.test(encoding)) {
    const bytes = trimmed.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
  return trimmed;
}
