import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const DIST = join(ROOT, 'dist');

/** A child's variables over the run's environment; `undefined` leaves one out. */
export type ChildEnv = Record<string, string | undefined>;

/**
 * `ownGroup`: in a process group of its own, as a shell starts a foreground job, so that `signalGroup`
 * reaches it and everything it started there. `cwd`: the working directory (the checkout by default).
 */
export interface RunOptions {
  ownGroup?: boolean;
  cwd?: string;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * A built entry point (`dist/main.js`, `dist/worker.js`) run as a child process on the run's database and
 * Redis (the environment of test/helpers/global-setup.ts), for tests that kill or stop it. The test run's
 * set-up builds `dist/` when it is missing or older than the sources. Start-up waits are generous: a cold start takes over 30 s when the
 * machine's two cores are shared by several test runs.
 */
export class BuiltProcess {
  private log = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  private constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
    const keep = (chunk: Buffer): void => void (this.log = (this.log + chunk.toString()).slice(-20_000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  /** Starts `dist/<entry>` with the run's environment plus `env`. */
  static start(entry: 'main.js' | 'worker.js', env: ChildEnv = {}, options: RunOptions = {}): BuiltProcess {
    const file = join(DIST, entry);
    if (!existsSync(file)) throw new Error(`dist/${entry} is missing: run \`npm run build\``);
    return BuiltProcess.run(entry, process.execPath, [file], env, options);
  }

  /** Any command (`npm start`), as `start` runs an entry point: the run's environment plus `env`, in `options.cwd` (the checkout by default). */
  static run(name: string, command: string, args: string[], env: ChildEnv = {}, options: RunOptions = {}): BuiltProcess {
    const child = spawn(command, args, {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: options.ownGroup ?? false,
    });
    return new BuiltProcess(name, child);
  }

  /** Sends `signal` to its whole process group, as Ctrl-C in a terminal does (started with `ownGroup`). */
  signalGroup(signal: NodeJS.Signals): void {
    process.kill(-this.child.pid!, signal);
  }

  /** The last 20 kB of its stdout and stderr. */
  get output(): string {
    return this.log;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Resolves once its output matches `pattern` (e.g. "worker started"); throws if it exits first. */
  async waitFor(pattern: RegExp, timeoutMs = 90_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!pattern.test(this.log)) {
      if (!this.running) throw new Error(`${this.name} exited before printing ${pattern}: ${this.log}`);
      if (Date.now() > deadline) throw new Error(`${this.name} did not print ${pattern} within ${timeoutMs} ms: ${this.log}`);
      await sleep(50);
    }
  }

  /** Resolves once `${base}/health/live` answers. */
  async waitUntilLive(base: string, timeoutMs = 90_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (!this.running) throw new Error(`${this.name} exited: ${this.log}`);
      if ((await fetch(`${base}/health/live`).catch(() => undefined))?.ok) return;
      if (Date.now() > deadline) throw new Error(`${this.name} did not answer within ${timeoutMs} ms: ${this.log}`);
      await sleep(100);
    }
  }

  /** Sends `signal` and waits for the exit (SIGKILL: at once, no clean-up of any kind). */
  async stop(signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.running) this.child.kill(signal);
    return this.exited;
  }
}
