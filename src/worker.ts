import { DynamicModule, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppLogger } from './common/observability/logger';
import { AppConfig } from './config/app-config';
import { CoreModule } from './core.module';
import { exitOnStartupError, prepareInfrastructure } from './infrastructure';
import { GracefulShutdown } from './shutdown';
import { WorkersModule } from './workers.module';
import { serveWorkerHealth } from './worker-health';

@Module({})
class WorkerAppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return { module: WorkerAppModule, imports: [CoreModule.forRoot(config), WorkersModule] };
  }
}

/** Queue workers only, no API listener (a health one on WORKER_HEALTH_PORT if set). Run any number beside the API processes. */
async function main(): Promise<void> {
  const shutdown = GracefulShutdown.install();
  const infra = await prepareInfrastructure();
  const app = await NestFactory.createApplicationContext(WorkerAppModule.forRoot(infra.config), { bufferLogs: true });
  app.useLogger(app.get(AppLogger));
  await app.init();
  shutdown.attach(app, () => infra.stop(), infra.log);
  const { healthPort } = infra.config.workers;
  if (healthPort) {
    await serveWorkerHealth(app, infra.config.http.host, healthPort);
    infra.log.info(`worker health on http://${infra.config.http.host}:${healthPort}/health/ready`);
  }
  infra.log.info('worker started');
}

main().catch(exitOnStartupError);
