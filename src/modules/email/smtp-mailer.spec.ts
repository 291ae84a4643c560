import { createServer, Server, Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { SmtpMailer, SmtpSendError } from './smtp-mailer';

/**
 * A minimal SMTP server on loopback, scripted per test: it records what happens in order ("data" when the
 * final dot arrives) and answers the end of DATA as told, or hangs up without answering. `idleCloseMs`
 * ends a session that stays idle that long (421, then close), as relays do; `onReusedMail` is what it
 * does when a second message starts on a session: answer, or end the session right then (the server's
 * idle close crossing the client's next command).
 */
class ScriptedServer {
  readonly events: string[] = [];
  endOfData: 'accept' | 'reject-451' | 'reject-554' | 'hang-up' = 'accept';
  idleCloseMs = 0;
  onReusedMail: 'answer' | 'drop' | 'close-421' = 'answer';
  private server!: Server;

  async start(): Promise<number> {
    this.server = createServer((socket) => this.session(socket));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as AddressInfo).port;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** Stops listening; sessions already open go on. */
  refuseNewConnections(): void {
    this.server.close();
  }

  private session(socket: Socket): void {
    let buffer = '';
    let inData = false;
    let messages = 0;
    let idleTimer: NodeJS.Timeout | undefined;
    const idle = (): void => {
      clearTimeout(idleTimer);
      if (this.idleCloseMs) idleTimer = setTimeout(() => socket.end('421 4.4.2 idle timeout\r\n'), this.idleCloseMs);
    };
    socket.write('220 test ESMTP\r\n');
    idle();
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(idleTimer);
      this.events.push('closed');
    });
    socket.on('data', (chunk) => {
      clearTimeout(idleTimer);
      buffer += chunk.toString('latin1');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          buffer = buffer.slice(end + 5);
          inData = false;
          messages++;
          this.events.push('data');
          if (this.endOfData === 'hang-up') return void socket.destroy();
          socket.write(
            this.endOfData === 'accept'
              ? '250 2.0.0 Ok: queued as ABC123\r\n'
              : this.endOfData === 'reject-451'
                ? '451 4.3.0 Try again later\r\n'
                : '554 5.7.1 Rejected\r\n',
          );
          continue;
        }
        const eol = buffer.indexOf('\r\n');
        if (eol < 0) return void idle();
        const line = buffer.slice(0, eol);
        buffer = buffer.slice(eol + 2);
        const verb = line.split(/[ :]/)[0].toUpperCase();
        if (verb === 'MAIL' && messages > 0 && this.onReusedMail !== 'answer') {
          if (this.onReusedMail === 'drop') return void socket.destroy();
          return void socket.end('421 4.4.2 closing idle session\r\n');
        }
        if (verb === 'EHLO' || verb === 'HELO') socket.write('250 test\r\n');
        else if (verb === 'DATA') {
          inData = true;
          socket.write('354 go ahead\r\n');
        } else if (verb === 'QUIT') socket.end('221 bye\r\n');
        else socket.write('250 ok\r\n');
      }
    });
  }
}

describe('SmtpMailer', () => {
  const envelope = { from: 'clinic@acme.test', to: 'ada@example.test' };
  const raw = Buffer.from('Subject: Hi\r\n\r\nHello\r\n.line starting with a dot\r\n');
  let server: ScriptedServer;
  let mailer: SmtpMailer;

  beforeEach(async () => {
    server = new ScriptedServer();
    mailer = new SmtpMailer(`smtp://127.0.0.1:${await server.start()}`, 2);
  });
  afterEach(async () => {
    await mailer.close();
    await server.stop();
  });

  it("sends a message and answers the server's acceptance", async () => {
    const accepted = await mailer.send(envelope, raw);
    expect(accepted.response).toMatch(/^250 .*queued as ABC123/);
    expect(server.events).toEqual(['data']);
  });

  it('never hands out a connection the server closed while it sat idle', async () => {
    server.idleCloseMs = 100;
    await mailer.send(envelope, raw);
    await new Promise((r) => setTimeout(r, 300)); // the server ends the idle session
    expect(server.events).toEqual(['data', 'closed']);
    await expect(mailer.send(envelope, raw)).resolves.toMatchObject({ response: expect.stringMatching(/^250/) });
    expect(server.events).toEqual(['data', 'closed', 'data']);
  });

  it.each(['drop', 'close-421'] as const)(
    'sends on a new connection, as one try, when the idle one turns out gone as the next message starts (%s)',
    async (how) => {
      await mailer.send(envelope, raw);
      server.onReusedMail = how;
      await expect(mailer.send(envelope, raw)).resolves.toMatchObject({ response: expect.stringMatching(/^250/) });
      expect(server.events).toEqual(['data', 'closed', 'data']);
    },
  );

  it("tries a new connection once: when that one fails too, the failure is the caller's", async () => {
    await mailer.send(envelope, raw);
    server.onReusedMail = 'drop';
    server.refuseNewConnections();
    await expect(mailer.send(envelope, raw)).rejects.toMatchObject({
      stage: 'before-data',
      message: expect.stringMatching(/ECONNREFUSED/),
    });
    expect(server.events).toEqual(['data', 'closed']);
  });

  it('tells a refusal after the message (4xx: may retry, 5xx: final) from a hang-up with no answer (unknown)', async () => {
    const outcome = async (): Promise<SmtpSendError> => {
      try {
        await mailer.send(envelope, raw);
      } catch (err) {
        return err as SmtpSendError;
      }
      throw new Error('expected the send to fail');
    };
    server.endOfData = 'reject-451';
    expect(await outcome()).toMatchObject({ stage: 'rejected', responseCode: 451, permanent: false });
    server.endOfData = 'reject-554';
    expect(await outcome()).toMatchObject({ stage: 'rejected', responseCode: 554, permanent: true });
    server.endOfData = 'hang-up';
    expect(await outcome()).toMatchObject({ stage: 'unknown', responseCode: null, permanent: false });
  });

  it('reports a server that is not there as a failure before the message went out', async () => {
    await server.stop();
    await expect(mailer.send(envelope, raw)).rejects.toMatchObject({ stage: 'before-data', responseCode: null });
    server = new ScriptedServer(); // afterEach stops a running one
    await server.start();
  });
});
