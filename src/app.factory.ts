import helmet from '@fastify/helmet';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { IncomingMessage } from 'node:http';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module';
import { Authenticator } from './common/auth/auth.types';
import { BEARER_SCHEME } from './common/auth/route-policy.decorator';
import { registerJsonBodyParser } from './common/http/json-body';
import { parseQuery } from './common/http/query';
import { answerClientError, checkRequests, rerouteFrameworkError } from './common/http/request-checks';
import { requestIdFor } from './common/http/request-id';
import { API_PREFIX } from './common/http/response-headers';
import { SECURITY_HEADERS_OPTIONS } from './common/http/security-headers';
import { createValidationPipe } from './common/http/validation';
import { MetricsService } from './common/observability/metrics.service';
import { IdempotencyInterceptor } from './common/traffic/idempotency.interceptor';
import { documentTrafficControl } from './common/traffic/openapi';
import { RateLimiter } from './common/traffic/rate-limiter';
import { limitUnmatchedRoutes } from './common/traffic/unmatched-routes';
import { AppConfig } from './config/app-config';

export const DEFAULT_BODY_LIMIT = 1024 * 1024;
declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set with @RouteConfig({ bodyLimit }) on a route that takes larger bodies (bulk import). */
    bodyLimit?: number;
  }
}

/** Builds the API application (not listening). Shared by main.ts and the e2e tests. */
export async function createApp(config: AppConfig, options: { logger?: boolean } = {}): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    bodyLimit: DEFAULT_BODY_LIMIT,
    genReqId: (req: IncomingMessage) => requestIdFor(req),
    routerOptions: { maxParamLength: 256, querystringParser: parseQuery },
    frameworkErrors: rerouteFrameworkError,
    clientErrorHandler: answerClientError,
    trustProxy: false,
  });
  const fastify = adapter.getInstance();
  // Only JSON bodies (415 otherwise); Nest adds no parser of its own (bodyParser: false).
  // A route may raise its body limit with @RouteConfig({ bodyLimit }).
  registerJsonBodyParser(fastify);
  fastify.addHook('onRoute', (route) => {
    if (route.config?.bodyLimit) route.bodyLimit = route.config.bodyLimit;
  });

  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), adapter, {
    bufferLogs: true,
    abortOnError: false,
    bodyParser: false,
  });
  app.useLogger(options.logger === false ? false : app.get(Logger));
  app.flushLogs();
  app.setGlobalPrefix(API_PREFIX, { exclude: ['health/live', 'health/ready', 'metrics'] });
  app.useGlobalPipes(createValidationPipe());

  await app.register(helmet, SECURITY_HEADERS_OPTIONS);

  // Hostile queries and headers are refused once here (after helmet, whose headers every answer carries),
  // before routes, guards and modules see them.
  checkRequests(fastify);

  const metrics = app.get(MetricsService);
  const idempotency = app.get(IdempotencyInterceptor);
  fastify.addHook('onSend', async (request, reply, payload) => {
    void reply.header('x-request-id', request.id);
    // Keeps the final response (errors included) of a POST that claimed an Idempotency-Key.
    await idempotency.onSend(request, reply, payload);
    return payload;
  });
  limitUnmatchedRoutes(fastify, app.get(RateLimiter), app.get(Authenticator));
  fastify.addHook('onResponse', async (request, reply) => {
    metrics.observe(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
  });

  setupOpenApi(app);
  await app.init();
  await fastify.ready();
  return app;
}

function setupOpenApi(app: NestFastifyApplication): void {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Practice Management API')
      .setVersion('1.0.0')
      .setDescription(
        [
          'Multi-tenant REST API for medical practices. Authenticate with `Authorization: Bearer sk_test_…` (test mode) or `sk_live_…` (live mode); test and live data never mix.',
          '',
          'Errors are `application/problem+json` (RFC 9457) with a stable `code`. Lists take `limit` (1–100, default 50) and `cursor`, and answer `nextCursor`.',
          'Every response carries `X-Request-Id`. Creates answer 201 with a `Location` header; deletes answer 204.',
          '',
          'Rate limits are per API key (per client IP without a valid key) over sliding windows; every `/api/v1` response carries `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset` (Unix seconds) for the tightest window and the IETF `RateLimit-Policy` / `RateLimit` fields; 429 `rate_limited` carries `Retry-After`. A refused request uses no quota.',
          'Every authenticated POST takes an `Idempotency-Key` (1–255 characters) that makes retries safe for 24 hours.',
        ].join('\n'),
      )
      .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'sk_test_… / sk_live_…' }, BEARER_SCHEME)
      .addServer('/')
      .build(),
  );
  documentTrafficControl(document);
  SwaggerModule.setup('api/docs', app, document, { jsonDocumentUrl: 'api/docs-json', customSiteTitle: 'Practice Management API' });
}
