import type { OpenAPIObject } from '@nestjs/swagger';

// @nestjs/swagger does not export its OpenAPI object types by name; derived from the document's type.
type OperationObject = NonNullable<OpenAPIObject['paths'][string]['post']>;
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

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/**
 * Writes traffic control into the OpenAPI document in one place rather than on every route: the
 * rate-limit headers on every /api/v1 response, and Retry-After on 429.
 */
export function documentTrafficControl(document: OpenAPIObject): void {
  document.components ??= {};
  document.components.headers = { ...document.components.headers, ...HEADERS };
  const refs = Object.fromEntries(Object.keys(HEADERS).map((name) => [name, { $ref: `#/components/headers/${name}` }]));
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation || !path.startsWith('/api/v1/')) continue;
      for (const [status, response] of Object.entries(operation.responses) as [string, ResponseObject][]) {
        response.headers = { ...response.headers, ...refs };
        if (status === '429') {
          response.headers['Retry-After'] = {
            description: 'Whole seconds (at least 1) after which one request succeeds',
            schema: { type: 'integer', minimum: 1 },
          };
        }
      }
    }
  }
}
