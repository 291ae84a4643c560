import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';
import pino from 'pino';
import { requestIdFor } from '../http/request-id';

/** The error pino-http invents for a response with a 5xx status (no error was passed to it). */
const isStatusError = (err: Error): boolean => err.message.startsWith('failed with status code ');

/**
 * Structured JSON logs. Requests are logged by method, path (no query string: it may hold patient
 * search terms), status and request id; headers, bodies and keys never are.
 */
export function loggerParams(level: string, destination: 1 | 2 = 1): Params {
  return {
    pinoHttp: [
      {
        level,
        genReqId: (req: IncomingMessage) => requestIdFor(req),
        redact: { paths: ['req.headers', 'res.headers', '*.authorization', '*.key', '*.secret'], remove: true },
        serializers: {
          req: (req: IncomingMessage & { id?: string }) => ({ requestId: req.id, method: req.method, path: (req.url ?? '').split('?')[0] }),
          res: (res: ServerResponse) => ({ statusCode: res.statusCode }),
        },
        // A 5xx answer's error is logged once, by the exception filter, with its class and SQL state; this
        // request line stays at info and carries no made-up "failed with status code" error of its own.
        customLogLevel: (_req: IncomingMessage, _res: ServerResponse, err?: Error) => (err ? 'error' : 'info'),
        customErrorObject: (_req: IncomingMessage, _res: ServerResponse, err: Error, value: Record<string, unknown>) =>
          isStatusError(err) ? { res: value.res, responseTime: value.responseTime } : value,
        customErrorMessage: (_req: IncomingMessage, _res: ServerResponse, err: Error) =>
          isStatusError(err) ? 'request completed' : 'request errored',
        autoLogging: { ignore: (req: IncomingMessage) => /^\/(health|metrics)/.test(req.url ?? '') },
      },
      // pino.destination: stdout for services, stderr for the CLI whose stdout is its JSON answer
      pino.destination({ fd: destination, sync: false }),
    ],
  };
}
