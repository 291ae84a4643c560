import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';
import pino from 'pino';
import { requestIdFor } from '../http/request-id';

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
        customLogLevel: (_req: IncomingMessage, res: ServerResponse, err?: Error) => (err || res.statusCode >= 500 ? 'error' : 'info'),
        autoLogging: { ignore: (req: IncomingMessage) => /^\/(health|metrics)/.test(req.url ?? '') },
      },
      // pino.destination: stdout for services, stderr for the CLI whose stdout is its JSON answer
      pino.destination({ fd: destination, sync: false }),
    ],
  };
}
