import { applyDecorators } from '@nestjs/common';
import { ApiExtension, ApiExtraModels, getSchemaPath } from '@nestjs/swagger';
import type { OpenAPIObject, ReferenceObject, SchemaObject } from '@nestjs/swagger';
import { isMarkedIdempotent } from '../../idempotency/openapi';
import { ERROR_CODES, ErrorCode } from '../errors/error-codes';
import { ProblemDto } from '../errors/problem.dto';

// @nestjs/swagger does not export its OpenAPI object types by name; derived from the document's type.
type OperationObject = NonNullable<OpenAPIObject['paths'][string]['post']>;
type ResponseObject = Extract<OperationObject['responses'][string], { description: string }>;

const DECLARED_CODES = 'x-error-codes';
const ALL_ROLES = 3;

/**
 * The problem codes this route answers beyond those every route of its kind answers (see
 * `documentErrors`): its domain's conflicts and preconditions, e.g.
 * `@ApiErrors('external_id_taken', 'precondition_failed')`. One per route (a second replaces the first).
 */
export function ApiErrors(...codes: ErrorCode[]): MethodDecorator & ClassDecorator {
  return applyDecorators(ApiExtraModels(ProblemDto), ApiExtension(DECLARED_CODES, codes));
}

/**
 * The codes the platform itself answers on an operation, read from its shape (key, parameters, body) and
 * from whether its route honours an Idempotency-Key (@Idempotent()).
 */
function platformCodes(path: string, op: OperationObject): ErrorCode[] {
  const codes: ErrorCode[] = [];
  const api = path.startsWith('/api/v1/');
  const authenticated = !!op.security?.length;
  const params = (op.parameters ?? []) as { in?: string }[];
  // Any query value is checked (NUL, lone surrogates, unknown keys), so every API route can answer 400.
  if (api) codes.push('validation_failed');
  if (op.requestBody) codes.push('invalid_json', 'payload_too_large', 'unsupported_media_type');
  if (authenticated) codes.push('missing_api_key', 'invalid_api_key');
  const extensions = op as unknown as Record<string, unknown>;
  if (authenticated && extensions['x-required-scope']) codes.push('insufficient_scope');
  if (authenticated && ((extensions['x-allowed-roles'] as string[] | undefined)?.length ?? ALL_ROLES) < ALL_ROLES)
    codes.push('insufficient_role');
  if (params.some((p) => p.in === 'path')) codes.push('not_found');
  if (isMarkedIdempotent(op)) codes.push('idempotency_key_in_use', 'idempotency_key_reused');
  if (api) codes.push('rate_limited', 'service_unavailable');
  return codes;
}

const EXAMPLE_DETAILS: Partial<Record<ErrorCode, Record<string, unknown>>> = {
  validation_failed: { detail: '1 field is invalid', errors: [{ field: 'email', message: 'must be an email address' }] },
  insufficient_scope: { detail: "This endpoint requires the 'patients:write' scope" },
  rate_limited: { detail: 'Rate limit of 10 requests per second exceeded' },
};

const exampleName = (code: ErrorCode): string => `Problem_${code}`;

/** One problem+json example per code, shared by every response that may carry it. */
function problemExamples(codes: Iterable<ErrorCode>): Record<string, { summary: string; value: Record<string, unknown> }> {
  return Object.fromEntries(
    [...codes].map((code) => [
      exampleName(code),
      {
        summary: ERROR_CODES[code].title,
        value: {
          type: 'about:blank',
          status: ERROR_CODES[code].status,
          code,
          title: ERROR_CODES[code].title,
          detail: ERROR_CODES[code].when,
          requestId: '0f6f1c1e-4c1a-4d7e-9d6e-2b8f1c2a9e11',
          ...EXAMPLE_DETAILS[code],
        },
      },
    ]),
  );
}

/** One problem+json response for `codes` (all of one status): their codes as the schema's enum, one example each. */
function problemResponse(codes: ErrorCode[]): ResponseObject {
  return {
    description: codes.map((c) => `\`${c}\`: ${ERROR_CODES[c].when}`).join('. '),
    content: {
      'application/problem+json': {
        schema: { allOf: [{ $ref: getSchemaPath(ProblemDto) }, { type: 'object', properties: { code: { type: 'string', enum: codes } } }] },
        examples: Object.fromEntries(codes.map((code) => [code, { $ref: `#/components/examples/${exampleName(code)}` }])),
      },
    },
  };
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/**
 * Writes each operation's error responses: the codes the platform answers on a route of its shape, plus
 * those the route declares with `@ApiErrors`, one response per status listing exactly those codes. So a
 * PUT never documents `idempotency_key_in_use` (only the POSTs with a key take an Idempotency-Key), and a
 * route's 409 names its own conflicts.
 */
export function documentErrors(document: OpenAPIObject): void {
  const used = new Set<ErrorCode>();
  for (const [path, item] of Object.entries(document.paths)) {
    // Health and metrics keep what their controllers say (the readiness 503 is terminus' own body).
    if (!path.startsWith('/api/v1/')) continue;
    for (const method of METHODS) {
      const op = item[method] as (OperationObject & Record<string, unknown>) | undefined;
      if (!op) continue;
      const declared = (op[DECLARED_CODES] as ErrorCode[] | undefined) ?? [];
      delete op[DECLARED_CODES];
      const codes = [...new Set([...platformCodes(path, op), ...declared])];
      for (const code of codes) used.add(code);
      const byStatus = new Map<number, ErrorCode[]>();
      for (const code of codes) byStatus.set(ERROR_CODES[code].status, [...(byStatus.get(ERROR_CODES[code].status) ?? []), code]);
      for (const status of Object.keys(op.responses)) if (Number(status) >= 400) delete op.responses[status];
      for (const [status, ofStatus] of [...byStatus].sort(([a], [b]) => a - b)) op.responses[String(status)] = problemResponse(ofStatus);
    }
  }
  document.components ??= {};
  document.components.examples = { ...document.components.examples, ...problemExamples([...used].sort()) };
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
  // An empty schema is any JSON value, null included: OpenAPI 3.0 has no null type, and `nullable` needs a `type`.
  description: 'Any JSON value: string, number, boolean, array, object or null',
});

/**
 * Optional query parameters (list filters) keep their example in the description, not as `example`:
 * Swagger UI pre-fills "Try it out" with examples, which would filter every first try to nothing.
 * Required ones keep theirs (there is no request without them).
 */
export function documentFilterExamples(document: OpenAPIObject): void {
  for (const item of Object.values(document.paths)) {
    for (const method of METHODS) {
      for (const param of (item[method]?.parameters ?? []) as {
        in?: string;
        required?: boolean;
        description?: string;
        example?: unknown;
        schema?: { example?: unknown };
      }[]) {
        if (param.in !== 'query' || param.required) continue;
        const example = param.example ?? param.schema?.example;
        delete param.example;
        if (param.schema) delete param.schema.example;
        if (example === undefined) continue;
        const text = `Example: \`${typeof example === 'string' ? example : JSON.stringify(example)}\``;
        param.description = param.description ? `${param.description.replace(/\.?\s*$/, '.')} ${text}` : text;
      }
    }
  }
}
