import { ChildProcess, ChildProcessByStdio, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { freePort } from './ports';
import { sleep } from './processes';
import { acceptingConnections } from './redis-server';

/** Runs `redis-cli` with `args`; resolves its output. */
function redisCli(args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile('redis-cli', args, { timeout: 30_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`redis-cli ${args.join(' ')}: ${err.message} ${stderr}`)) : resolve(stdout),
    ),
  );
}

/**
 * A Redis Cluster of a test's own: three masters, no replicas, no persistence, on free loopback ports (the
 * nodes' bus ports too, so none lands in the OS's ephemeral range), their cluster files in a temporary
 * directory. Never the shared Redis.
 */
export class PrivateRedisCluster {
  private readonly children: ChildProcess[] = [];

  private constructor(
    readonly ports: number[],
    private readonly busPorts: number[],
    private readonly dir: string,
  ) {}

  static async start(masters = 3): Promise<PrivateRedisCluster> {
    const ports: number[] = [];
    const busPorts: number[] = [];
    for (let i = 0; i < masters; i++) [ports[i], busPorts[i]] = [await freePort(), await freePort()];
    const cluster = new PrivateRedisCluster(ports, busPorts, mkdtempSync(join(tmpdir(), 'pm-redis-cluster-')));
    try {
      await cluster.startNodes();
      await redisCli(['--cluster', 'create', ...cluster.addresses, '--cluster-replicas', '0', '--cluster-yes']);
      await cluster.untilServing();
      return cluster;
    } catch (err) {
      cluster.stop();
      throw err;
    }
  }

  /** Kills every node (SIGKILL, an outage) and resolves once they are gone. */
  async kill(): Promise<void> {
    const running = this.children.splice(0).filter((child) => child.exitCode === null && child.signalCode === null);
    await Promise.all(running.map((child) => new Promise((resolve) => child.once('exit', resolve).kill('SIGKILL'))));
  }

  /** Starts the nodes again on their ports, empty but with their cluster files; resolves once the cluster serves. */
  async restart(): Promise<void> {
    await this.startNodes();
    await this.untilServing();
  }

  /** `127.0.0.1:<port>` of every master. */
  get addresses(): string[] {
    return this.ports.map((port) => `127.0.0.1:${port}`);
  }

  /** REDIS_CLUSTER_NODES for this cluster. */
  get nodes(): string {
    return this.addresses.join(',');
  }

  /** A command on one node (the first by default). */
  cli(args: string[], port = this.ports[0]): Promise<string> {
    return redisCli(['-h', '127.0.0.1', '-p', String(port), ...args]);
  }

  /** Kills every node (SIGKILL: nothing to keep) and removes their files. */
  stop(): void {
    for (const child of this.children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async startNodes(): Promise<void> {
    for (const [i, port] of this.ports.entries()) {
      const node = startNode(this.dir, port, this.busPorts[i]);
      this.children.push(node);
      await acceptingConnections(node);
    }
  }

  /** Resolves once every node says the cluster serves all its slots. */
  private async untilServing(): Promise<void> {
    for (let tries = 0; tries < 200; tries++) {
      const states = await Promise.all(this.ports.map((port) => this.cli(['cluster', 'info'], port).catch(() => '')));
      if (states.every((info) => /cluster_state:ok/.test(info) && /cluster_slots_ok:16384/.test(info))) return;
      await sleep(100);
    }
    throw new Error(`the cluster on ${this.nodes} did not come up`);
  }
}

/** Starts one cluster-enabled redis-server. */
function startNode(dir: string, port: number, busPort: number): ChildProcessByStdio<null, Readable, Readable> {
  const child = spawn(
    'redis-server',
    [
      ...['--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--cluster-port', String(busPort)],
      ...['--cluster-config-file', join(dir, `nodes-${port}.conf`), '--dir', dir],
      ...['--save', '', '--appendonly', 'no', '--daemonize', 'no'],
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return child;
}
