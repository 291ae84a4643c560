import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's X-Request-Id when it is sane, else a new one; kept on the raw request for the logger. */
export function requestIdFor(req: IncomingMessage): string {
  const raw = req as IncomingMessage & { requestId?: string };
  if (raw.requestId) return raw.requestId;
  const header = req.headers['x-request-id'];
  const id = typeof header === 'string' && SANE_REQUEST_ID.test(header) ? header : randomUUID();
  raw.requestId = id;
  return id;
}
