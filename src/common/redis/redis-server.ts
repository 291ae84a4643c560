import { spawn, execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import Redis from 'ioredis';

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

async function answers(url: string): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1500 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

function onPath(binary: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${binary}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export interface ResolvedRedis {
  url: string;
  stop(): void;
}

/**
 * REDIS_URL unset: use the local Redis; if none answers, start `redis-server` from PATH on a free
 * loopback port (in memory, nothing on disk); otherwise fail with one line that says what to do.
 */
export async function resolveDefaultRedis(log: (line: string) => void): Promise<ResolvedRedis> {
  if (await answers(DEFAULT_REDIS_URL)) return { url: DEFAULT_REDIS_URL, stop: () => undefined };
  if (!onPath('redis-server')) {
    throw new Error(
      `No Redis answers at ${DEFAULT_REDIS_URL} and no redis-server is on PATH: install Redis (apt-get install redis-server) or set REDIS_URL`,
    );
  }
  const port = await freePort();
  // Its own process group, like the embedded PostgreSQL: Ctrl-C reaches this process, which stops Redis
  // only after the app has closed.
  const child = spawn('redis-server', ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
    detached: true,
  });
  const url = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 50; i++) {
    if (await answers(url)) {
      log(`started redis-server on 127.0.0.1:${port}`);
      return { url, stop: () => child.kill('SIGTERM') };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`redis-server did not start on 127.0.0.1:${port}`);
}
