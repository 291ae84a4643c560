import { createServer, Server, Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { HandOverRefused, SmtpMailer, SmtpSendError } from './smtp-mailer';

/**
 * A minimal SMTP server on loopback, scripted per test: it records what happens in order ("data" when the
 * final dot arrives) and answers the end of DATA as told, or hangs up without answering.
 */
class ScriptedServer {
  readonly events: string[] = [];
  endOfData: 'accept' | 'reject-451' | 'reject-554' | 'hang-up' = 'accept';
  private server!: Server;

  async start(): Promise<number> {
    this.server = createServer((socket) => this.session(socket));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as AddressInfo).port;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private session(socket: Socket): void {
    let buffer = '';
    let inData = false;
    socket.write('220 test ESMTP\r\n');
    socket.on('error', () => undefined);
    socket.on('close', () => this.events.push('closed'));
    socket.on('data', (chunk) => {
      buffer += chunk.toString('latin1');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          buffer = buffer.slice(end + 5);
          inData = false;
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
        if (eol < 0) return;
        const line = buffer.slice(0, eol);
        buffer = buffer.slice(eol + 2);
        const verb = line.split(/[ :]/)[0].toUpperCase();
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

  it('lets the final dot out only once the hand-over has answered true', async () => {
    const handOver = async (): Promise<boolean> => {
      server.events.push('hand-over');
      await new Promise((r) => setTimeout(r, 50));
      expect(server.events).not.toContain('data'); // the server holds nothing yet
      return true;
    };
    const accepted = await mailer.send(envelope, raw, handOver);
    expect(accepted.response).toMatch(/^250 .*queued as ABC123/);
    expect(server.events.slice(0, 2)).toEqual(['hand-over', 'data']);
  });

  it('sends nothing when the hand-over answers false, and the connection is not reused', async () => {
    await expect(mailer.send(envelope, raw, () => Promise.resolve(false))).rejects.toBeInstanceOf(HandOverRefused);
    await new Promise((r) => setTimeout(r, 50));
    expect(server.events).toEqual(['closed']);
    // The pool opens a fresh connection for the next message.
    await expect(mailer.send(envelope, raw, () => Promise.resolve(true))).resolves.toMatchObject({
      response: expect.stringMatching(/^250/),
    });
  });

  it('tells a refusal after the dot (4xx: may retry, 5xx: final) from a hang-up with no answer (unknown)', async () => {
    const outcome = async (): Promise<SmtpSendError> => {
      try {
        await mailer.send(envelope, raw, () => Promise.resolve(true));
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

  it('reports a server that is not there as a failure before the hand-over', async () => {
    await server.stop();
    const handOver = jest.fn(() => Promise.resolve(true));
    await expect(mailer.send(envelope, raw, handOver)).rejects.toMatchObject({ stage: 'before-hand-over' });
    expect(handOver).not.toHaveBeenCalled();
    server = new ScriptedServer(); // afterEach stops a running one
    await server.start();
  });
});
