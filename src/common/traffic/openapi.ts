import type { OpenAPIObject } from '@nestjs/swagger';

// @nestjs/swagger does not export its OpenAPI object types by name; derived from the document's type.
type OperationObject = NonNullable<OpenAPIObject['paths'][string]['post']>;
type ParameterObject = Extract<NonNullable<OperationObject['parameters']>[number], { in: string }>;
type ResponseObject = Extract<OperationObject['responses'][string], { description: string }>;
type HeaderObject = Extract<NonNullable<ResponseObject['headers']>[string], { description?: string }>;

const HEADERS: Record<string, HeaderObject> = {
  'X-RateLimit-Limit': { description: 'Limit of the tightest window (the one with the fewest requests left)', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the tightest window', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Unix time in seconds when the tightest window frees a request', schema: { type: 'integer' } },
  'RateLimit-Policy': {
    description: 'Every window of the caller (draft-ietf-httpapi-ratelimit-headers-11), e.g. `"second";q=10;w=1, "hour";q=100;w=3600`',
    schema: { type: 'string' },
  },
  RateLimit: {
    description: 'The tightest window: `r` requests left, `t` seconds until it frees one, e.g. `"hour";r=57;t=1260`',
    schema: { type: 'string' },
  },
};

const IDEMPOTENCY_KEY: ParameterObject = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    "Makes a retry safe: the first response (2xx or 4xx; 5xx is not kept) is kept for 24 hours per API key (another key's use of the same value is a fresh request), and a retry " +
    'with the same method, path, query and JSON body (key order ignored) gets it again with `Idempotent-Replayed: true`. ' +
    'The same key with another request answers 422 `idempotency_key_reused`; while the first is still running, 409 `idempotency_key_in_use`.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/**
 * Put by bindRoutes on the operations whose routes honour an Idempotency-Key, where it decides which routes
 * the interceptor wraps: the document says what the routes do. Read here and by documentErrors (409/422).
 */
export const IDEMPOTENCY_KEY_EXTENSION = 'x-idempotency-key';

/** Whether bindRoutes marked this operation as honouring an Idempotency-Key. */
export function isMarkedIdempotent(operation: object): boolean {
  return (operation as Record<string, unknown>)[IDEMPOTENCY_KEY_EXTENSION] === true;
}

/**
 * Writes traffic control into the OpenAPI document in one place rather than on every route: the
 * rate-limit headers on every /api/v1 response, Retry-After on 429, and on the operations bindRoutes marked
 * as honouring an Idempotency-Key the header and the Idempotent-Replayed response header (their 409/422:
 * documentErrors).
 */
export function documentTrafficControl(document: OpenAPIObject): void {
  document.components ??= {};
  document.components.headers = { ...document.components.headers, ...HEADERS };
  const refs = Object.fromEntries(Object.keys(HEADERS).map((name) => [name, { $ref: `#/components/headers/${name}` }]));
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const idempotent = isMarkedIdempotent(operation);
      delete (operation as unknown as Record<string, unknown>)[IDEMPOTENCY_KEY_EXTENSION];
      if (!path.startsWith('/api/v1/')) continue;
      for (const [status, response] of Object.entries(operation.responses) as [string, ResponseObject][]) {
        response.headers = { ...response.headers, ...refs };
        if (status === '429') {
          response.headers['Retry-After'] = {
            description: 'Whole seconds (at least 1) after which one request succeeds',
            schema: { type: 'integer', minimum: 1 },
          };
        }
      }
      if (!idempotent) continue;
      operation.parameters = [...(operation.parameters ?? []), IDEMPOTENCY_KEY];
      for (const [status, response] of Object.entries(operation.responses) as [string, ResponseObject][]) {
        if (status.startsWith('2') || status.startsWith('4')) {
          response.headers = {
            ...response.headers,
            'Idempotent-Replayed': {
              description: '`true` when this is a stored response replayed for an Idempotency-Key',
              schema: { type: 'string', enum: ['true'] },
            },
          };
        }
      }
    }
  }
}
