import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import type { OpenAPIObject, ReferenceObject, SchemaObject } from '@nestjs/swagger';
import { ProblemDto } from './problem.dto';

const PROBLEMS: Record<number, { description: string; code: string; title: string; detail: string }> = {
  400: {
    description: 'Invalid JSON or a body/query that fails validation',
    code: 'validation_failed',
    title: 'Validation failed',
    detail: '1 field is invalid',
  },
  401: {
    description: 'Missing, malformed, unknown, revoked or expired API key',
    code: 'invalid_api_key',
    title: 'Unauthorized',
    detail: 'The API key is not valid',
  },
  403: {
    description: 'The key lacks the scope or role this endpoint needs',
    code: 'insufficient_scope',
    title: 'Forbidden',
    detail: "This endpoint requires the 'patients:write' scope",
  },
  404: {
    description: 'No such resource for this tenant and mode',
    code: 'not_found',
    title: 'Not found',
    detail: 'The requested resource does not exist',
  },
  409: {
    description: 'The request conflicts with the current state',
    code: 'idempotency_key_in_use',
    title: 'Conflict',
    detail: 'A request with this Idempotency-Key is still being processed',
  },
  412: {
    description: 'If-Match does not match the current ETag',
    code: 'precondition_failed',
    title: 'Precondition failed',
    detail: 'The resource changed since it was read',
  },
  413: {
    description: 'Body too large',
    code: 'payload_too_large',
    title: 'Payload too large',
    detail: 'The request body exceeds the size limit of this endpoint',
  },
  415: {
    description: 'Body sent with a Content-Type other than JSON',
    code: 'unsupported_media_type',
    title: 'Unsupported media type',
    detail: 'Send request bodies as application/json',
  },
  422: {
    description: 'Idempotency-Key reused with a different request',
    code: 'idempotency_key_reused',
    title: 'Idempotency key reused',
    detail: 'This Idempotency-Key was used with a different request',
  },
  429: {
    description: 'Rate limit exceeded; see Retry-After',
    code: 'rate_limited',
    title: 'Too many requests',
    detail: 'Rate limit of 10 requests per second exceeded',
  },
  503: {
    description: 'PostgreSQL or Redis unreachable',
    code: 'service_unavailable',
    title: 'Service unavailable',
    detail: 'A backing service is unavailable; try again shortly',
  },
};

/** Documents problem+json error responses for the given statuses. */
export function ApiProblemResponses(...statuses: number[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiExtraModels(ProblemDto),
    ...statuses.map((status) => {
      const p = PROBLEMS[status];
      return ApiResponse({
        status,
        description: p.description,
        content: {
          'application/problem+json': {
            schema: { $ref: getSchemaPath(ProblemDto) },
            example: { type: 'about:blank', status, code: p.code, title: p.title, detail: p.detail, requestId: 'req_5bd1c0e7' },
          },
        },
      });
    }),
  );
}

const NAMED_SCHEMAS = new Map<string, SchemaObject>();

/**
 * A schema that is not a DTO class (a free-form JSON object, say) but should still be a named
 * component, so that generated clients get a type name for it. Returns the `$ref` to use in
 * decorators; `addNamedSchemas` writes every registered schema into the document.
 */
export function namedSchema(name: string, schema: SchemaObject): ReferenceObject {
  NAMED_SCHEMAS.set(name, schema);
  return { $ref: getSchemaPath(name) };
}

export function addNamedSchemas(document: OpenAPIObject): void {
  document.components ??= {};
  document.components.schemas = { ...document.components.schemas, ...Object.fromEntries(NAMED_SCHEMAS) };
}

/** Any JSON value: what a free-form settings key may hold. */
export const JSON_VALUE = namedSchema('JsonValue', {
  description: 'Any JSON value',
  anyOf: [
    { type: 'string' },
    { type: 'number' },
    { type: 'boolean' },
    { type: 'array', items: {} },
    { type: 'object', additionalProperties: true },
  ],
  nullable: true,
});
