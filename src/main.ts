import { createApp } from './app.factory';
import { exitOnStartupError, prepareInfrastructure } from './infrastructure';
import { GracefulShutdown } from './shutdown';

/** The API (and, unless WORKERS=off, the queue workers) on HOST:PORT. */
async function main(): Promise<void> {
  const shutdown = GracefulShutdown.install();
  const infra = await prepareInfrastructure();
  const { config } = infra;
  const app = await createApp(config);
  shutdown.attach(app, () => infra.stop(), infra.log);
  if (shutdown.isRequested) return; // a signal came during start-up: closing, not serving
  await app.listen({ host: config.http.host, port: config.http.port });
  infra.log.info(`API listening on http://${config.http.host}:${config.http.port} (Swagger UI: /api/docs)`);
}

main().catch(exitOnStartupError);
