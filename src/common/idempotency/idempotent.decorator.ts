import { applyDecorators, SetMetadata, Type, UseInterceptors } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { IdempotencyScope } from './idempotency-keys.repository';
import { ApiExtension } from '@nestjs/swagger';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { IDEMPOTENCY_KEY_EXTENSION } from './openapi';

export const IDEMPOTENT = 'idempotent';
export const IDEMPOTENCY_CALLER = 'idempotency-caller';

/**
 * Whom a public route keeps Idempotency-Keys for, since it has no API key: a provider of the route's module
 * that names the record the request is for (a booking page) with its tenant and mode; null when there is
 * none (the route then answers as it would, 404).
 */
export interface IdempotencyCaller {
  scopeOf(request: FastifyRequest): Promise<IdempotencyScope | null>;
}

/**
 * The route honours an Idempotency-Key: its interceptor wraps the route (and only such routes, so a GET
 * pays nothing for it), its final answer is kept by a hook of the route (see bindRoutes), and the
 * OpenAPI document gets the header, `Idempotent-Replayed` and the 409/422 codes. Keys are kept per API key;
 * a public route names its `caller` instead (the route-policy test checks that every authenticated POST
 * and no other public one is idempotent).
 */
export function Idempotent(caller?: Type<IdempotencyCaller>): MethodDecorator {
  return applyDecorators(
    SetMetadata(IDEMPOTENT, true),
    ...(caller ? [SetMetadata(IDEMPOTENCY_CALLER, caller)] : []),
    UseInterceptors(IdempotencyInterceptor),
    ApiExtension(IDEMPOTENCY_KEY_EXTENSION, true),
  );
}

/** Whether the route handler is marked @Idempotent(). */
export function isIdempotent(handler: object): boolean {
  return Reflect.getMetadata(IDEMPOTENT, handler) === true;
}
