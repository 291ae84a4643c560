import { createApp } from './app.factory';
import { exitOnStartupError, prepareInfrastructure } from './infrastructure';
import { closeOnSignals } from './shutdown';

/** The API (and, unless WORKERS=off, the queue workers) on HOST:PORT. */
async function main(): Promise<void> {
  const infra = await prepareInfrastructure();
  const { config } = infra;
  const app = await createApp(config);
  closeOnSignals(app, () => infra.stop());
  await app.listen({ host: config.http.host, port: config.http.port });
  process.stderr.write(`API listening on http://${config.http.host}:${config.http.port} (Swagger UI: /api/docs)\n`);
}

main().catch(exitOnStartupError);
