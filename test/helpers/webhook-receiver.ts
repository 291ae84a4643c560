import { createServer, IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** How the receiver answers one request on a path: a status, a body, and how long it waits first. */
export interface Answer {
  status: number;
  body?: string;
  delayMs?: number;
}

/**
 * A local HTTP receiver on loopback for webhook tests. Each path answers from its script (one answer per
 * request, the last one repeating; 200 "ok" by default) and keeps what it received.
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  private readonly scripts = new Map<string, Answer[]>();
  private server!: Server;

  async start(): Promise<this> {
    this.server = createServer(
      (req, res) =>
        void this.handle(req).then((answer) => setTimeout(() => res.writeHead(answer.status).end(answer.body ?? ''), answer.delayMs ?? 0)),
    );
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Sets how `path` answers its next requests. */
  script(path: string, ...answers: Answer[]): void {
    this.scripts.set(path, answers);
  }

  on(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage): Promise<Answer> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = req.url ?? '/';
    this.received.push({ path, headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
    const script = this.scripts.get(path) ?? [];
    const answer = script.length > 1 ? script.shift()! : (script[0] ?? { status: 200, body: 'ok' });
    return answer;
  }
}
