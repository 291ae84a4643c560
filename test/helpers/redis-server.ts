import { ChildProcess, ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { freePort } from './ports';

/**
 * A private `redis-server` (no persistence) on a free port, for outage tests: they kill and restart this
 * one, never the run's shared Redis. Restarting keeps the port, so clients reconnect to the same URL.
 */
export class PrivateRedis {
  private child?: ChildProcess;

  private constructor(readonly port: number) {}

  static async start(): Promise<PrivateRedis> {
    const redis = new PrivateRedis(await freePort());
    await redis.restart();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Starts the server on its port; resolves once it accepts connections. */
  async restart(): Promise<void> {
    const child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    await acceptingConnections(child);
  }

  /** SIGKILL, as a crash: no clean-up, clients see their connections reset. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}

/** Resolves once a `redis-server` started with piped output says it accepts connections; rejects if it exits first. */
export async function acceptingConnections(child: ChildProcessByStdio<null, Readable, Readable>): Promise<void> {
  let log = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${log}`)), 10_000);
    child.stdout.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      if (/Ready to accept connections/.test(log)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited: ${log}`));
    });
  });
  child.stdout.resume();
  child.stderr.resume();
}
