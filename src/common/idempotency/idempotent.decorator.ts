import { applyDecorators, SetMetadata, UseInterceptors } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { IDEMPOTENCY_KEY_EXTENSION } from './openapi';

export const IDEMPOTENT = 'idempotent';

/**
 * The route honours an Idempotency-Key: its interceptor wraps the route (and only such routes, so a GET
 * pays nothing for it), its final answer is kept by a hook of the route (see bindRoutes), and the
 * OpenAPI document gets the header, `Idempotent-Replayed` and the 409/422 codes. For authenticated POSTs
 * only: a public route has no API key to scope a stored answer by (the route-policy test checks this).
 */
export function Idempotent(): MethodDecorator {
  return applyDecorators(
    SetMetadata(IDEMPOTENT, true),
    UseInterceptors(IdempotencyInterceptor),
    ApiExtension(IDEMPOTENCY_KEY_EXTENSION, true),
  );
}

/** Whether the route handler is marked @Idempotent(). */
export function isIdempotent(handler: object): boolean {
  return Reflect.getMetadata(IDEMPOTENT, handler) === true;
}
