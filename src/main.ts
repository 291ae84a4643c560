import { createApp } from './app.factory';
import { exitOnStartupError, prepareInfrastructure } from './infrastructure';
import { GracefulShutdown } from './shutdown';

/** The API (and, unless WORKERS=off, the queue workers) on HOST:PORT. */
async function main(): Promise<void> {
  const shutdown = GracefulShutdown.install();
  const infra = await prepareInfrastructure();
  const { config } = infra;
  const app = await createApp(config);
  shutdown.attach(app, () => infra.stop());
  if (shutdown.isRequested) return; // a signal came during start-up: closing, not serving
  await app.listen({ host: config.http.host, port: config.http.port });
  process.stderr.write(`API listening on http://${config.http.host}:${config.http.port} (Swagger UI: /api/docs)\n`);
}

main().catch(exitOnStartupError);
