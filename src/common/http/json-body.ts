import type { FastifyInstance } from 'fastify';
import { ApiException, FieldError, ValidationFailedException } from './problem';

export const MAX_JSON_DEPTH = 32;

/**
 * Finds what no body may carry: nesting deeper than MAX_JSON_DEPTH, and the prototype-poisoning keys
 * `__proto__` and `constructor.prototype` (JSON.parse keeps them as plain own keys, but merges and
 * class-transformer downstream might not). Answers the dotted path of the first offence.
 */
export function findUnsafeJson(value: unknown): FieldError | undefined {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: '', depth: 0 }];
  while (stack.length) {
    const { value: node, path, depth } = stack.pop()!;
    if (!node || typeof node !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) return { field: path || 'body', message: `nests deeper than ${MAX_JSON_DEPTH} levels` };
    for (const [key, child] of Object.entries(node) as [string, unknown][]) {
      const childPath = path ? `${path}.${key}` : key;
      const poisoned =
        key === '__proto__' || (key === 'constructor' && child !== null && typeof child === 'object' && Object.hasOwn(child, 'prototype'));
      if (poisoned) return { field: childPath, message: 'is a forbidden key' };
      stack.push({ value: child, path: childPath, depth: depth + 1 });
    }
  }
  return undefined;
}

/**
 * The only body parser: JSON, size-bounded by the route's body limit (413 above it), depth-bounded and
 * free of prototype-poisoning keys. A syntax error is 400 invalid_json; an unsafe shape is 400
 * validation_failed. Other content types answer 415 (no parser matches).
 */
export function registerJsonBodyParser(fastify: FastifyInstance): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body: string, done) => {
    if (body.trim() === '') return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return done(new ApiException(400, 'invalid_json', 'Invalid JSON', 'The request body is not valid JSON'), undefined);
    }
    const unsafe = findUnsafeJson(parsed);
    if (unsafe) return done(new ValidationFailedException([unsafe]), undefined);
    done(null, parsed);
  });
}
