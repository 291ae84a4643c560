import { CallHandler, ExecutionContext, Injectable, Logger, NestInterceptor } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { from, Observable, of, switchMap } from 'rxjs';
import { ApiException, ProblemBody, ServiceUnavailableException } from '../http/problem';
import {
  IDEMPOTENCY_HEADER,
  idempotencyScope,
  IdempotencyRecord,
  parseIdempotencyKey,
  REPLAYED_HEADER,
  REPLAYED_RESPONSE_HEADERS,
  requestFingerprint,
  StoredResponse,
} from './idempotency';
import { ClaimOutcome, IdempotencyClaim, IdempotencyStore } from './idempotency.store';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set while this request holds an Idempotency-Key; the onSend hook stores its response or releases it. */
    idempotency?: { claim: IdempotencyClaim; fingerprint: string };
  }
}

export class IdempotencyKeyInUseException extends ApiException {
  constructor() {
    super(
      409,
      'idempotency_key_in_use',
      'Idempotency key in use',
      'A request with this Idempotency-Key is still being processed; retry later',
    );
  }
}

export class IdempotencyKeyReusedException extends ApiException {
  constructor() {
    super(
      422,
      'idempotency_key_reused',
      'Idempotency key reused',
      'This Idempotency-Key was already used with a different request (method, path or body)',
    );
  }
}

/** A stored problem+json answer thrown again, so that the exception filter sends it as it was. */
class ReplayedProblem extends ApiException {
  constructor(response: StoredResponse) {
    const { type: _type, status, code, title, detail, requestId: _requestId, ...extensions } = JSON.parse(response.body) as ProblemBody;
    super(status, code, title, detail, extensions, { ...response.headers, [REPLAYED_HEADER]: 'true' });
  }
}

/**
 * Idempotency-Key on authenticated POSTs (contract section 4), Stripe's semantics: the first response
 * (2xx or 4xx) is kept for IDEMPOTENCY_TTL_SECONDS per tenant, mode and key; a replay of the same request
 * gets it again with `Idempotent-Replayed: true`; another request with the key is 422; a duplicate while
 * the first runs is 409; a 5xx is not kept (the claim is released so that a retry runs). Runs after the
 * guards, so 401/403/429 answers neither claim nor store. Public POSTs are not covered: no tenant to
 * scope by, and the public pages' writes (booking) are guarded by their own uniqueness rules.
 *
 * The response is stored by `onSend` (a Fastify hook, see app.factory.ts), where the status, headers and
 * serialised body are final, errors rendered by the exception filter included.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly logger = new Logger(IdempotencyInterceptor.name);

  constructor(private readonly store: IdempotencyStore) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    if (request.method !== 'POST' || !request.auth) return next.handle();
    const key = parseIdempotencyKey(request.headers[IDEMPOTENCY_HEADER]);
    if (key === undefined) return next.handle();
    const fingerprint = requestFingerprint(request.method, request.url, request.body);
    const scope = idempotencyScope(request.auth.tenantId, request.auth.mode, key);
    return from(this.claim(scope, fingerprint)).pipe(
      switchMap((outcome) => {
        if ('claimed' in outcome) {
          request.idempotency = { claim: outcome.claimed, fingerprint };
          return next.handle();
        }
        return this.replay(outcome.existing, fingerprint, http.getResponse<FastifyReply>());
      }),
    );
  }

  /** Keeps the final response of a request that holds a claim (or releases the claim after a 5xx). */
  async onSend(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<void> {
    const held = request.idempotency;
    if (!held) return;
    request.idempotency = undefined;
    try {
      if (reply.statusCode >= 500 || (typeof payload !== 'string' && payload !== undefined && payload !== null)) {
        await this.store.release(held.claim);
        return;
      }
      const headers: Record<string, string> = {};
      for (const name of REPLAYED_RESPONSE_HEADERS) {
        const value = reply.getHeader(name);
        if (value !== undefined) headers[name] = String(value);
      }
      await this.store.complete(held.claim, held.fingerprint, { status: reply.statusCode, body: payload ?? '', headers });
    } catch (err) {
      // The response still goes out; the claim expires after IDEMPOTENCY_LOCK_SECONDS.
      this.logger.warn(`could not store the idempotent response: ${(err as Error).message}`);
    }
  }

  private async claim(scope: string[], fingerprint: string): Promise<ClaimOutcome> {
    try {
      return await this.store.claim(scope, fingerprint);
    } catch (err) {
      this.logger.warn(`idempotency store unavailable: ${(err as Error).message}`);
      throw new ServiceUnavailableException('Idempotency keys are unavailable; try again shortly');
    }
  }

  private replay(record: IdempotencyRecord, fingerprint: string, reply: FastifyReply): Observable<unknown> {
    if (record.fingerprint !== fingerprint) throw new IdempotencyKeyReusedException();
    if (record.state === 'running') throw new IdempotencyKeyInUseException();
    const { response } = record;
    if (response.status >= 400) throw new ReplayedProblem(response);
    // The route answers with the same status as the first time (Nest applies the route's status code);
    // the body goes out byte for byte as it was first serialised.
    void reply.headers({ ...response.headers, [REPLAYED_HEADER]: 'true' });
    return of(response.body === '' ? undefined : response.body);
  }
}
