import type { LoggerService } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import pino, { DestinationStream, Level, Logger as Pino } from 'pino';
import type { LogFormat } from '../../config/app-config';

/** Nest's start-up chatter (one line per module, controller and route): useful when debugging, a wall at info. */
const STARTUP_CONTEXTS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer']);

/** Paths polled by orchestrators and scrapers: never logged per request. */
const UNLOGGED_ROUTES = new Set(['/health/live', '/health/ready', '/metrics']);

/** The level of the one line per answered request: what an operator sees by default. */
export const REQUEST_LOG_LEVEL: Level = 'info';

/**
 * The process's log: JSON lines (one object per line) for collectors, readable lines through pino-pretty
 * when the destination is a terminal (`npm start` by hand) or LOG_FORMAT=pretty. stdout for services, stderr for the CLI
 * whose stdout is its JSON answer.
 */
export function createLog(level: string, format: LogFormat = 'auto', fd: 1 | 2 = 1, sync = false): Pino {
  const terminal = fd === 1 ? process.stdout.isTTY : process.stderr.isTTY;
  let destination: DestinationStream;
  if (format === 'pretty' || (format === 'auto' && terminal)) {
    // Loaded only for a terminal: a service writing JSON never pays for the prettifier.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const pretty = require('pino-pretty') as (options: object) => DestinationStream;
    destination = pretty({
      destination: fd,
      colorize: true,
      translateTime: 'SYS:HH:MM:ss.l',
      // One line per entry, as in JSON: `request completed GET /api/v1/patients/:id 200 3.1 ms {"requestId":…}`;
      // pino-pretty would print each other field on a line of its own. An error's stack keeps its own lines.
      singleLine: true,
      ignore: 'pid,hostname,context,method,route,statusCode,responseTime',
      messageFormat:
        '{if context}[{context}] {end}{msg}{if method} {method} {route}{end}{if statusCode} {statusCode} {responseTime} ms{end}',
    });
  } else {
    destination = pino.destination({ fd, sync });
  }
  return pino({ level, redact: { paths: ['*.authorization', '*.key', '*.secret'], remove: true } }, destination);
}

/**
 * Nest's logger (its own lines and every `new Logger(context)`) written to the pino log. Errors are
 * logged by the exception filter with the request id, method and path; no per-request logging context
 * (AsyncLocalStorage) is kept: on Node 20 it costs every promise of every request.
 */
export class AppLogger implements LoggerService {
  constructor(readonly pino: Pino) {}

  log(message: unknown, ...params: unknown[]): void {
    const context = contextOf(params);
    this.write(context && STARTUP_CONTEXTS.has(context) ? 'debug' : 'info', message, context, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, contextOf(params), params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, contextOf(params), params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, contextOf(params), params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, contextOf(params), params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, contextOf(params), params);
  }

  /**
   * `logger.error({ error, requestId }, 'request failed')` logs the object's fields with the message;
   * an Error is logged as `err`; Nest's `error(message, stack, context)` keeps the stack.
   */
  private write(level: Level, message: unknown, context: string | undefined, params: unknown[]): void {
    if (!this.pino.isLevelEnabled(level)) return;
    const [text] = params;
    if (message instanceof Error) {
      this.pino[level]({ context, err: message }, typeof text === 'string' ? text : message.message);
    } else if (message !== null && typeof message === 'object') {
      this.pino[level]({ context, ...message }, typeof text === 'string' ? text : undefined);
    } else if (level === 'error' && typeof text === 'string' && text.includes('\n    at ')) {
      this.pino[level]({ context, stack: text }, String(message));
    } else {
      this.pino[level]({ context }, String(message));
    }
  }
}

/** Nest passes the logger's context as the last parameter. */
function contextOf(params: unknown[]): string | undefined {
  if (!params.length) return undefined;
  const last = params[params.length - 1];
  if (typeof last !== 'string') return undefined;
  params.pop();
  return last;
}

/** What is observed of each answer: its time in the metrics, and its log line. */
export interface ResponseObserver {
  observe(method: string, route: string, status: number, seconds: number): void;
}

/**
 * One onResponse hook for every answer (each hook is a cost on every request): the metrics, and at
 * REQUEST_LOG_LEVEL one line with the request id, method, route pattern (`/api/v1/patients/:id`: no ids,
 * no query string, which may hold patient search terms), status, time in ms, the caller's tenant and key
 * ids and the client's address (request.ip: X-Forwarded-For only through a trusted proxy, TRUST_PROXY).
 * Headers, bodies, query values and keys never are. Probes and scrapes are not logged.
 */
export function observeResponses(fastify: FastifyInstance, appLog: Pino, metrics: ResponseObserver): void {
  const logging = appLog.isLevelEnabled(REQUEST_LOG_LEVEL);
  // The app log's destination, without its redaction paths: they would cost several times the line itself
  // on every request, and the line's fields (below) hold no header or secret to redact.
  const log = pino({ level: appLog.level }, (appLog as unknown as Record<symbol, DestinationStream>)[pino.symbols.streamSym]);
  fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const route = request.routeOptions.url;
    const ms = reply.elapsedTime;
    metrics.observe(request.method, route ?? 'unmatched', reply.statusCode, ms / 1000);
    if (logging && !UNLOGGED_ROUTES.has(route ?? '')) {
      const auth = request.auth;
      log[REQUEST_LOG_LEVEL](
        {
          requestId: request.id,
          method: request.method,
          route: route ?? null,
          statusCode: reply.statusCode,
          responseTime: Math.round(ms * 10) / 10,
          tenantId: auth?.tenantId ?? request.auditScope?.tenantId ?? null,
          apiKeyId: auth?.apiKeyId ?? null,
          ip: request.ip,
        },
        'request completed',
      );
    }
    done();
  });
}
