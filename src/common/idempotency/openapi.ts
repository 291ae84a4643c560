import type { OpenAPIObject } from '@nestjs/swagger';

// @nestjs/swagger does not export its OpenAPI object types by name; derived from the document's type.
type OperationObject = NonNullable<OpenAPIObject['paths'][string]['post']>;
type ParameterObject = Extract<NonNullable<OperationObject['parameters']>[number], { in: string }>;
type ResponseObject = Extract<OperationObject['responses'][string], { description: string }>;

/** Put by @Idempotent() on its operations; read by documentErrors (409/422) and documentIdempotency, which removes it. */
export const IDEMPOTENCY_KEY_EXTENSION = 'x-idempotency-key';

/** Whether @Idempotent() marked this operation. */
export function isMarkedIdempotent(operation: object): boolean {
  return (operation as Record<string, unknown>)[IDEMPOTENCY_KEY_EXTENSION] === true;
}

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
 * On the operations @Idempotent() marked, the Idempotency-Key header and the Idempotent-Replayed response
 * header (their 409/422: documentErrors, which runs first); the mark itself is removed from every operation.
 */
export function documentIdempotency(document: OpenAPIObject): void {
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const idempotent = isMarkedIdempotent(operation);
      delete (operation as unknown as Record<string, unknown>)[IDEMPOTENCY_KEY_EXTENSION];
      if (!idempotent || !path.startsWith('/api/v1/')) continue;
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
