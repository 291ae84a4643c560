import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { uuidv7 } from '../ids';
import { EntityManager, Repository } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { AppCrypto } from '../crypto/app-crypto';
import { TenantScope } from '../../database/tenant-owned.entity';
import { TenantScopedRepository } from '../../database/tenant-scoped.repository';
import { clock } from '../time/clock';
import { IdempotencyKeyEntity } from './entities/idempotency-key.entity';
import type { IdempotencyRecord, StoredResponse } from './idempotency';

/**
 * Whose Idempotency-Keys: one API key's (a tenant's other keys have their own); on a public route, one
 * record's, such as a booking page (IdempotencyCaller).
 */
export interface IdempotencyScope extends TenantScope {
  callerId: string;
}

/** A key held by the running request: `token` proves it, `recoveryPoints` are what an earlier attempt committed. */
export interface IdempotencyClaim {
  id: string;
  token: string;
  recoveryPoints: Buffer[];
}

export type ClaimOutcome = { claimed: IdempotencyClaim } | { existing: IdempotencyRecord };

/**
 * Stored answers and recovery points are encrypted (AppCrypto): an answer may carry a secret (a new API
 * key) and stays 24 hours. Bound to the record, so a value copied into another key's row does not open.
 */
export const IDEMPOTENCY_RESPONSE_PURPOSE = 'idempotency-response';
export const IDEMPOTENCY_RECOVERY_POINT_PURPOSE = 'idempotency-recovery-point';
export const idempotencyRecordContext = (scope: IdempotencyScope, id: string): string =>
  `idempotency_keys:${scope.tenantId}:${scope.mode}:${scope.callerId}:${id}`;

const ms = (param: string): string => `${param}::int * interval '1 millisecond'`;

/**
 * Inserts the claim, or takes over a record whose holder is gone (a running record past its lock, with
 * the same request; its recovery points are kept) or that has expired (a fresh start). Anything else is
 * left as it is and nothing is returned: the caller reads it to replay, 409 or 422. Expiry reads the business
 * clock ($10); the lock, a duration of work in flight, the database's own.
 */
const CLAIM = `
  INSERT INTO idempotency_keys AS k (id, tenant_id, mode, api_key_id, key_hash, fingerprint, state, token, locked_until,
    recovery_points, created_at, expires_at)
  VALUES ($3, $1, $2, $4, $5, $6, 'running', $7, now() + ${ms('$8')}, '{}', $10, $10::timestamptz + ${ms('$9')})
  ON CONFLICT (tenant_id, mode, api_key_id, key_hash) DO UPDATE SET
    token = EXCLUDED.token,
    locked_until = EXCLUDED.locked_until,
    state = 'running',
    fingerprint = EXCLUDED.fingerprint,
    recovery_points = CASE WHEN k.expires_at <= $10 THEN '{}' ELSE k.recovery_points END,
    response_status = NULL, response_body = NULL, response_headers = NULL,
    created_at = CASE WHEN k.expires_at <= $10 THEN EXCLUDED.created_at ELSE k.created_at END,
    expires_at = CASE WHEN k.expires_at <= $10 THEN EXCLUDED.expires_at ELSE k.expires_at END
  WHERE k.expires_at <= $10 OR (k.state = 'running' AND k.locked_until <= now() AND k.fingerprint = EXCLUDED.fingerprint)
  RETURNING k.id, k.recovery_points AS "recoveryPoints"`;

/** How often one process sweeps expired records (they are also ignored, and overwritten, once expired). */
const SWEEP_EVERY_MS = 10 * 60_000;
const SWEEP_BATCH = 5000;

/** Idempotency-Key records in PostgreSQL, shared by every API instance (see IdempotencyInterceptor). */
@Injectable()
export class IdempotencyKeysRepository extends TenantScopedRepository<IdempotencyKeyEntity> {
  private nextSweep = Date.now() + SWEEP_EVERY_MS; // how often, not what expires: the real clock

  constructor(
    @InjectRepository(IdempotencyKeyEntity) repository: Repository<IdempotencyKeyEntity>,
    private readonly config: AppConfig,
    private readonly crypto: AppCrypto,
  ) {
    super(repository);
  }

  /** Claims the key for this request, or answers what is already there (running or done). */
  async claim(scope: IdempotencyScope, keyHash: string, fingerprint: string): Promise<ClaimOutcome> {
    this.sweepNowAndThen();
    const { lockMs, ttlMs } = this.config.idempotency;
    // A record released between the two statements is claimed on the next turn.
    for (let attempt = 1; ; attempt++) {
      const token = randomUUID();
      const [claimed] = await this.sql<{ id: string; recoveryPoints: Buffer[] }[]>(scope, CLAIM, [
        uuidv7(),
        scope.callerId,
        keyHash,
        fingerprint,
        token,
        lockMs,
        ttlMs,
        clock.now(),
      ]);
      if (claimed) {
        const context = idempotencyRecordContext(scope, claimed.id);
        const recoveryPoints = claimed.recoveryPoints.map((p) => this.crypto.decryptBytes(IDEMPOTENCY_RECOVERY_POINT_PURPOSE, p, context));
        return { claimed: { id: claimed.id, token, recoveryPoints } };
      }
      const [existing] = await this.sql<
        Pick<IdempotencyKeyEntity, 'id' | 'state' | 'fingerprint' | 'responseStatus' | 'responseBody' | 'responseHeaders'>[]
      >(
        scope,
        `SELECT id, state, fingerprint, response_status AS "responseStatus", response_body AS "responseBody",
                response_headers AS "responseHeaders"
           FROM idempotency_keys WHERE tenant_id = $1 AND mode = $2 AND api_key_id = $3 AND key_hash = $4`,
        [scope.callerId, keyHash],
      );
      if (existing) {
        if (existing.state === 'running') return { existing: { state: 'running', fingerprint: existing.fingerprint } };
        const response: StoredResponse = {
          status: existing.responseStatus!,
          body:
            existing.responseBody === null
              ? ''
              : this.crypto.decrypt(IDEMPOTENCY_RESPONSE_PURPOSE, existing.responseBody, idempotencyRecordContext(scope, existing.id)),
          headers: existing.responseHeaders ?? {},
        };
        return { existing: { state: 'done', fingerprint: existing.fingerprint, response } };
      }
      if (attempt >= 3) throw new Error('the idempotency key could not be claimed');
    }
  }

  /** Appends a recovery point inside the guarded transaction; false if the claim is no longer this request's. */
  async recordRecoveryPoint(scope: IdempotencyScope, claim: IdempotencyClaim, point: Buffer, tx: EntityManager): Promise<boolean> {
    const sealed = this.crypto.encryptBytes(IDEMPOTENCY_RECOVERY_POINT_PURPOSE, point, idempotencyRecordContext(scope, claim.id));
    const [, count] = await this.sql<[unknown[], number]>(
      scope,
      `UPDATE idempotency_keys SET recovery_points = recovery_points || $5::bytea
        WHERE tenant_id = $1 AND mode = $2 AND id = $3 AND token = $4`,
      [claim.id, claim.token, sealed],
      tx,
    );
    return count === 1;
  }

  /** Keeps the final response for replays (the recovery points are no longer needed), if the claim is still ours. */
  async complete(scope: IdempotencyScope, claim: IdempotencyClaim, response: StoredResponse): Promise<void> {
    const body = this.crypto.encrypt(IDEMPOTENCY_RESPONSE_PURPOSE, response.body, idempotencyRecordContext(scope, claim.id));
    await this.sql(
      scope,
      `UPDATE idempotency_keys
          SET state = 'done', token = NULL, recovery_points = '{}', response_status = $5, response_body = $6,
              response_headers = $7::jsonb, expires_at = $9::timestamptz + ${ms('$8')}
        WHERE tenant_id = $1 AND mode = $2 AND id = $3 AND token = $4`,
      [claim.id, claim.token, response.status, body, JSON.stringify(response.headers), this.config.idempotency.ttlMs, clock.now()],
    );
  }

  /**
   * Gives the key up after a 5xx: a record with nothing committed is dropped (the key is as if unused);
   * one whose earlier transactions committed stays, unlocked, for a retry to resume from them.
   */
  async release(scope: TenantScope, claim: IdempotencyClaim): Promise<void> {
    const params = [claim.id, claim.token];
    const [, dropped] = await this.sql<[unknown[], number]>(
      scope,
      `DELETE FROM idempotency_keys WHERE tenant_id = $1 AND mode = $2 AND id = $3 AND token = $4 AND cardinality(recovery_points) = 0`,
      params,
    );
    if (dropped) return;
    await this.sql(
      scope,
      `UPDATE idempotency_keys SET token = NULL, locked_until = now() WHERE tenant_id = $1 AND mode = $2 AND id = $3 AND token = $4`,
      params,
    );
  }

  /**
   * Deletes expired records of every tenant, a batch at a time (maintenance, not a tenant's query).
   * Answers how many went.
   */
  async deleteExpired(): Promise<number> {
    const [, count] = await this.unscopedSql<[unknown[], number]>(
      `DELETE FROM idempotency_keys WHERE id IN (SELECT id FROM idempotency_keys WHERE expires_at < $1 LIMIT ${SWEEP_BATCH})`,
      [clock.now()],
    );
    return count;
  }

  /** At most every SWEEP_EVERY_MS per process, in the background of a claim; best effort. */
  private sweepNowAndThen(): void {
    if (Date.now() < this.nextSweep) return;
    this.nextSweep = Date.now() + SWEEP_EVERY_MS;
    void this.deleteExpired().catch(() => undefined);
  }
}
