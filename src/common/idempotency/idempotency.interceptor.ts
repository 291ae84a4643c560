import { CallHandler, ExecutionContext, Injectable, Logger, NestInterceptor, Type } from '@nestjs/common';
import { ModuleRef, Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { from, Observable, of, switchMap } from 'rxjs';
import { ApiException, ProblemBody, ServiceUnavailableProblem } from '../http/errors/problem';
import { addRouteHook } from '../http/responses/response-headers';
import {
  IDEMPOTENCY_HEADER,
  IdempotencyRecord,
  idempotencyKeyHash,
  parseIdempotencyKey,
  REPLAYED_HEADER,
  REPLAYED_RESPONSE_HEADERS,
  requestFingerprint,
  StoredResponse,
} from './idempotency';
import { ClaimOutcome, IdempotencyClaim, IdempotencyKeysRepository, IdempotencyScope } from './idempotency-keys.repository';
import { runTransactionsWith } from '../../database/transactions';
import { RecoveryLog } from './recovery-log';
import { IDEMPOTENCY_CALLER, IdempotencyCaller } from './idempotent.decorator';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set while this request holds an Idempotency-Key; the route's onSend hook stores its response or releases it. */
    idempotency?: HeldIdempotencyKey;
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

const logger = new Logger('IdempotencyInterceptor');

/**
 * Idempotency-Key on the authenticated POSTs marked @Idempotent(), Stripe's semantics: the first response
 * (2xx or 4xx) is kept for IDEMPOTENCY_TTL_SECONDS per API key and Idempotency-Key (another key's use of
 * the same value is a fresh request, so an answer carrying a secret only ever goes back to its creator);
 * a replay of the same request gets it again with `Idempotent-Replayed: true`; another request with the
 * key is 422; a duplicate while the first runs is 409; a 5xx is not kept (the claim is released so that a
 * retry runs). Runs after the guards, so 401/403/429 answers neither claim nor store. A public POST has no
 * API key: it is covered only when its route names whom to keep keys for (`@Idempotent(caller)`, the
 * booking page), and a request its caller finds no record for runs as if without a key.
 *
 * Crash safety, in PostgreSQL (Stripe's recovery points):
 * 1. The claim is a row (INSERT … ON CONFLICT) holding a token and a lock (IDEMPOTENCY_LOCK_SECONDS).
 * 2. While the handler runs, its transactions run through the claim's RecoveryLog (runTransactionsWith,
 *    set only here), which appends each transaction's result to the row inside that transaction, checking
 *    the token: the write and the record that it happened commit together or not at all.
 * 3. An onSend hook of the route (addIdempotencyHooks), where status, headers and body are final, stores
 *    the response and drops the recovery points.
 * A process that dies between 2 and 3 leaves a running row with committed recovery points; once its lock
 * expires, a retry of the same request takes it over and runs the handler again, and its RecoveryLog
 * answers the recorded results instead of writing again: same status, body, Location and ETag, no second
 * write. A process that dies before its transaction commits leaves nothing recorded (the transaction
 * rolled back), so the retry runs afresh. A request that lost its claim to such a takeover cannot commit
 * (the token check fails and rolls it back, 409): at most one write per key, whatever the timing.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly keys: IdempotencyKeysRepository,
    private readonly reflector: Reflector,
    private readonly moduleRef: ModuleRef,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    if (request.method !== 'POST') return next.handle();
    const key = parseIdempotencyKey(request.headers[IDEMPOTENCY_HEADER]);
    if (key === undefined) return next.handle();
    const fingerprint = requestFingerprint(request.method, request.url, request.body);
    return from(this.scopeOf(context, request)).pipe(
      switchMap((scope) => {
        if (!scope) return next.handle();
        return from(this.claim(scope, idempotencyKeyHash(key), fingerprint)).pipe(
          switchMap((outcome) => {
            if ('claimed' in outcome) {
              const held = new HeldIdempotencyKey(this.keys, scope, outcome.claimed);
              request.idempotency = held;
              // Nest binds the handler's async context when handle() is called: inside run(), it sees the claim.
              return runTransactionsWith(held.log, () => next.handle());
            }
            return this.replay(outcome.existing, fingerprint, http.getResponse<FastifyReply>());
          }),
        );
      }),
    );
  }

  /** The request's API key; on a public route, what its caller names; null: no key to keep (the route answers as it would). */
  private async scopeOf(context: ExecutionContext, request: FastifyRequest): Promise<IdempotencyScope | null> {
    if (request.auth) return { tenantId: request.auth.tenantId, mode: request.auth.mode, callerId: request.auth.apiKeyId };
    const caller = this.reflector.get<Type<IdempotencyCaller> | undefined>(IDEMPOTENCY_CALLER, context.getHandler());
    return caller ? this.moduleRef.get(caller, { strict: false }).scopeOf(request) : null;
  }

  private async claim(scope: IdempotencyScope, keyHash: string, fingerprint: string): Promise<ClaimOutcome> {
    try {
      return await this.keys.claim(scope, keyHash, fingerprint);
    } catch (err) {
      // Debug only: the outage itself is logged once by DependencyStatus, not once per request.
      logger.debug(`idempotency keys unavailable: ${(err as Error).message}`);
      throw new ServiceUnavailableProblem('Idempotency keys are unavailable; try again shortly');
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

/** The claim a running request holds, and the recovery log its transactions run through. */
class HeldIdempotencyKey {
  readonly log: RecoveryLog;

  constructor(
    private readonly keys: IdempotencyKeysRepository,
    readonly scope: IdempotencyScope,
    readonly claim: IdempotencyClaim,
  ) {
    this.log = new RecoveryLog(claim.recoveryPoints, async (point, tx) => {
      if (!(await keys.recordRecoveryPoint(scope, claim, point, tx))) throw new IdempotencyKeyInUseException();
    });
  }

  /** Keeps the request's final response for replays, or gives the key up after a 5xx. */
  async keep(reply: FastifyReply, payload: unknown): Promise<void> {
    this.log.close();
    // A retry that got an earlier attempt's committed result did not write: it is a replay.
    if (this.log.replayedAny) void reply.header(REPLAYED_HEADER, 'true');
    try {
      if (reply.statusCode >= 500 || (typeof payload !== 'string' && payload !== undefined && payload !== null)) {
        await this.keys.release(this.scope, this.claim);
        return;
      }
      const headers: Record<string, string> = {};
      for (const name of REPLAYED_RESPONSE_HEADERS) {
        const value = reply.getHeader(name);
        if (value !== undefined) headers[name] = String(value);
      }
      await this.keys.complete(this.scope, this.claim, { status: reply.statusCode, body: payload ?? '', headers });
    } catch (err) {
      // The response still goes out; the claim can be taken over once its lock expires.
      logger.warn(`could not store the idempotent response: ${(err as Error).message}`);
    }
  }
}

/**
 * The onSend hook of an @Idempotent() route (added when Fastify registers it, see app.factory.ts): where
 * status, headers and body are final, errors included, it keeps the answer of a request that claimed a key.
 * Other routes have no such hook, and a request without a key costs one property read.
 */
export function addIdempotencyHooks(route: RouteOptions): void {
  addRouteHook(
    route,
    'onSend',
    (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: Error | null, payload?: unknown) => void) => {
      const held = request.idempotency;
      if (!held) return done(null, payload);
      request.idempotency = undefined;
      held.keep(reply, payload).then(() => done(null, payload), done);
    },
  );
}
