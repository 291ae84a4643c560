import type SwaggerParser from '@apidevtools/swagger-parser';
import type { OpenAPIObject, OperationObject, ReferenceObject } from '@nestjs/swagger';

/** The operations an OpenAPI 3 path item can hold, by method. */
export const OPENAPI_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type OpenApiMethod = (typeof OPENAPI_METHODS)[number];

/** Every operation of the document, with its path and method. */
export function operationsOf(doc: OpenAPIObject): { path: string; method: OpenApiMethod; op: OperationObject }[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    OPENAPI_METHODS.filter((method) => item[method]).map((method) => ({ path, method, op: item[method]! })),
  );
}

/**
 * A member the document may give inline or as a `$ref` (a response, a request body, an example): the
 * inline one, else undefined, as reading its members through an unresolved `$ref` finds nothing.
 */
export function inline<T extends object>(value: T | ReferenceObject | undefined): T | undefined {
  return value && !('$ref' in value) ? value : undefined;
}

/** The error codes a problem response of the document declares (its schema's `code` enum). */
export function problemCodes(response: unknown): string[] {
  const problem = response as {
    content: { 'application/problem+json': { schema: { allOf: { properties: { code: { enum: string[] } } }[] } } };
  };
  return problem.content['application/problem+json'].schema.allOf[1].properties.code.enum;
}

/**
 * A copy of the document for swagger-parser, which dereferences what it is given in place. Typed as the
 * openapi-types document it takes: the same JSON, whose types differ from Nest's in details (a server
 * variable's default may only be a string there).
 */
export function parserCopy(doc: OpenAPIObject): ParserDocument {
  return structuredClone(doc) as ParserDocument;
}
type ParserDocument = Awaited<ReturnType<typeof SwaggerParser.validate>>;
