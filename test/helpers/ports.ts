import { createServer } from 'node:net';

/*
 * Ports for servers a test starts and names before they listen (a child process, a private Redis, an app
 * whose PUBLIC_URL names its port). Taken below the OS's ephemeral range (32768 and up on Linux) in a block
 * per Jest worker: so the OS never hands one to an outgoing connection, nor another worker to its server,
 * between this check and the caller's listen. Each suite starts at a random place in its worker's block.
 */
const FIRST = 20_000;
const BLOCK = 2_000;
const block = FIRST + ((Number(process.env.JEST_WORKER_ID ?? '1') - 1) % 6) * BLOCK;
let next = Math.floor(Math.random() * BLOCK);

function listenable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A loopback port nothing listens on at the moment, of this worker's block. */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < BLOCK; tries++) {
    const port = block + (next++ % BLOCK);
    if (await listenable(port)) return port;
  }
  throw new Error(`no free port in ${block}-${block + BLOCK - 1}`);
}
