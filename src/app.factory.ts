import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import type { IncomingMessage } from 'node:http';
import { AppModule } from './app.module';
import { Authenticator } from './common/auth/auth.types';
import { refuseBodies, registerJsonBodyParser } from './common/http/requests/json-body';
import { parseQuery } from './common/http/requests/query';
import { isPublicPath, registerCors } from './common/http/responses/cors';
import { answerClientError, checkRequests, rerouteFrameworkError } from './common/http/requests/request-checks';
import { requestIdFor } from './common/http/requests/request-id';
import { addResponseHeadersHooks, API_PREFIX } from './common/http/responses/response-headers';
import { bindRoutes } from './common/http/requests/route-bindings';
import { addIdempotencyHooks } from './common/idempotency/idempotency.interceptor';
import { securityHeaders } from './common/http/responses/security-headers';
import { servedWithExamplesFromNow } from './common/http/openapi/example-dates';
import { createValidationPipe } from './common/http/errors/validation';
import { AppLogger, observeResponses } from './common/observability/logger';
import { MetricsService } from './common/observability/metrics.service';
import { mountQueueDashboard } from './common/queue/queue-dashboard';
import { clock } from './common/time/clock';
import { RateLimiter } from './common/traffic/rate-limiter';
import { limitUnmatchedRoutes } from './common/traffic/unmatched-routes';
import { AppConfig, TrustProxy } from './config/app-config';
import { buildOpenApiDocument } from './openapi';

export const DEFAULT_BODY_LIMIT = 1024 * 1024;
declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set with @RouteConfig({ bodyLimit }) on a route that takes larger bodies (bulk import). */
    bodyLimit?: number;
  }
}

/** /api/v1 on every route but the probes and metrics. Shared with the OpenAPI export, which builds no app. */
export function setGlobalPrefix(app: INestApplication): void {
  app.setGlobalPrefix(API_PREFIX, { exclude: ['health/live', 'health/ready', 'metrics'] });
}

/** Builds the API application (not listening). Shared by main.ts and the e2e tests. */
export async function createApp(config: AppConfig, options: { logger?: boolean } = {}): Promise<NestFastifyApplication> {
  const https = config.http.publicUrl.startsWith('https:');
  const publicUrl = config.http.publicUrlSet ? config.http.publicUrl : undefined;
  const security = Object.entries(securityHeaders({ https, publicUrl }));
  const publicSecurity = Object.entries(securityHeaders({ https, publicUrl, crossOrigin: true }));
  const adapter = new FastifyAdapter({
    bodyLimit: DEFAULT_BODY_LIMIT,
    genReqId: (req: IncomingMessage) => requestIdFor(req),
    routerOptions: { maxParamLength: 256, querystringParser: parseQuery },
    frameworkErrors: rerouteFrameworkError,
    clientErrorHandler: (error, socket) => answerClientError(error, socket, securityHeaders({ https, publicUrl })),
    trustProxy: fastifyTrustProxy(config.http.trustProxy),
  });
  const fastify = adapter.getInstance();
  // At shutdown Fastify closes the keep-alive connections idle at that moment; one still answering a request
  // would then stay open for its keepAliveTimeout (Fastify's 72 s) and hold the process that long. From
  // then on every answer says `Connection: close` (in the onSend hook below), so each connection closes
  // once its answer is sent.
  let closing = false;
  fastify.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  // Only JSON bodies (415 otherwise); Nest adds no parser of its own (bodyParser: false).
  // A route may raise its body limit with @RouteConfig({ bodyLimit }).
  registerJsonBodyParser(fastify);
  fastify.addHook('onRoute', (route) => {
    if (route.config?.bodyLimit) route.bodyLimit = route.config.bodyLimit;
    // Set by bindRoutes below: hooks of this route only, so that other routes pay nothing for them.
    if (route.config?.responseHeaders) addResponseHeadersHooks(route, route.config.responseHeaders);
    if (route.config?.idempotent) addIdempotencyHooks(route);
    if (route.config?.noBody && !route.config.formBody) refuseBodies(route);
  });

  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), adapter, {
    bufferLogs: true,
    abortOnError: false,
    bodyParser: false,
  });
  const logger = app.get(AppLogger);
  app.useLogger(options.logger === false ? false : logger);
  app.flushLogs();
  setGlobalPrefix(app);
  app.useGlobalPipes(createValidationPipe());

  // Helmet's headers, computed once (helmet itself would rebuild them, CSP included, on every request),
  // and the request id: on every answer, the framework's own (404, 415 …) included. Public routes' answers
  // are for other sites' pages, which the same-origin resource policy would keep from using them.
  fastify.addHook('onRequest', (request, reply, done) => {
    for (const [name, value] of isPublicPath(request.url) ? publicSecurity : security) reply.raw.setHeader(name, value as string);
    reply.raw.setHeader('x-request-id', request.id);
    done();
  });
  await registerCors(fastify, config.http.corsOrigins);

  // Hostile queries and headers are refused once here (after the security headers, which every answer carries),
  // before routes, guards and modules see them.
  checkRequests(fastify);

  const metrics = app.get(MetricsService);
  bindRoutes(app);
  // The one global onSend hook (each hook is a cost on every answer): `Connection: close` once closing (above).
  fastify.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
  limitUnmatchedRoutes(fastify, app.get(RateLimiter), app.get(Authenticator));
  observeResponses(fastify, logger.pino, metrics);

  setupOpenApi(app, publicUrl);
  await mountQueueDashboard(app, config);
  await app.init();
  await fastify.ready();
  return app;
}

/**
 * TRUST_PROXY for Fastify, which then takes the client's address (request.ip: the per-IP limits, the audit log,
 * the request lines) from X-Forwarded-For only through trusted proxies. A hop count becomes Fastify's own test,
 * as the adapter's options do not type it.
 */
function fastifyTrustProxy(trust: TrustProxy | undefined): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return trust ?? false;
}

function setupOpenApi(app: NestFastifyApplication, publicUrl: string | undefined): void {
  const document = buildOpenApiDocument(app, publicUrl);
  const served = servedWithExamplesFromNow(document, () => clock.now());
  SwaggerModule.setup('api/docs', app, document, {
    // Example dates that must lie ahead are computed from the clock when served (src/common/http/openapi/example-dates.ts).
    patchDocumentOnRequest: () => served(),
    jsonDocumentUrl: 'api/docs-json',
    customSiteTitle: 'Practice Management API',
    // The key survives a reload (local storage of this origin, cleared by Logout): see the scheme's description.
    swaggerOptions: { persistAuthorization: true },
  });
}
