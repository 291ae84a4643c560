import { loadConfig } from './config/app-config';

/**
 * A container's health check, for the API and the worker alike (`node dist/healthcheck.js`, exit 0 when
 * ready): asks this process's own `/health/ready` — the worker's on WORKER_HEALTH_PORT, the API's on PORT —
 * with Node's fetch, so the image needs no curl.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const port = config.workers.healthPort ?? config.http.port;
  const host = ['0.0.0.0', '::', ''].includes(config.http.host) ? '127.0.0.1' : config.http.host;
  const url = new URL(`http://${host.includes(':') ? `[${host}]` : host}:${port}/health/ready`);
  const res = await fetch(url, { signal: AbortSignal.timeout(3000) });
  if (!res.ok) throw new Error(`${url.href} answered ${res.status}`);
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    process.stderr.write(`unhealthy: ${err.message}\n`);
    process.exit(1);
  },
);
