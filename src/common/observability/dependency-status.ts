import { Global, Injectable, Logger, Module, OnModuleInit, Optional } from '@nestjs/common';
import type { EventEmitter } from 'node:events';
import { DataSource } from 'typeorm';

export type Dependency = 'redis' | 'postgres';

/** A BullMQ queue, worker or queue-events: errors on itself, its connections' `ready` on its backend. */
interface BullConnectionOwner {
  on(event: 'error', listener: (err: Error) => void): unknown;
  getBackend(): { on(event: 'ready', listener: () => void): unknown };
}

/** The connection a failed request stands for when its role has no pool of its own. */
const REQUESTS = Object.freeze({});

/** How one connection role has fared: for the log's transitions and the metrics. */
export interface DependencyRoleState {
  dependency: Dependency;
  role: string;
  up: boolean;
  /** Transitions to down and back up since start. */
  downs: number;
  ups: number;
}

/**
 * Whether this process reaches PostgreSQL and Redis, per connection role (`commands`, `pubsub`, `queue-workers`,
 * `queries`, …), told by the connections' own events. An outage is one warning when a role loses its
 * dependency and one info line when it is back, however many errors and reconnection attempts come in
 * between; nothing is logged per failed request (503s are counted, see /metrics).
 */
@Injectable()
export class DependencyStatus implements OnModuleInit {
  private readonly logger = new Logger('Dependencies');
  /** Per role, the connections that are down: a role is back when every one of them is, not at its first `ready`. */
  private readonly roles = new Map<string, DependencyRoleState & { downSince?: number; downConnections: Set<object> }>();
  private readonly pools = new Map<string, EventEmitter>();
  /** 503 service_unavailable answers since start. */
  unavailableAnswers = 0;

  constructor(@Optional() private readonly dataSource?: DataSource) {}

  onModuleInit(): void {
    const pool = (this.dataSource?.driver as { master?: EventEmitter } | undefined)?.master;
    if (pool) this.watchPostgres(pool, 'queries');
  }

  get states(): DependencyRoleState[] {
    return [...this.roles.values()].map(({ dependency, role, up, downs, ups }) => ({ dependency, role, up, downs, ups }));
  }

  /** An ioredis connection: every error while it cannot connect, `ready` once it (re)connects. */
  watchRedis(connection: EventEmitter, role: string): void {
    this.track('redis', role);
    connection.on('error', (err: Error) => this.down('redis', role, err, connection));
    connection.on('ready', () => this.up('redis', role, connection));
  }

  /**
   * BullMQ's queues, workers and queue-events: connection errors mark the role down (and without a listener
   * BullMQ prints them raw on stderr); any other error goes to `otherError`.
   */
  watchBull(owner: BullConnectionOwner, role: string, otherError: (err: Error) => void = () => undefined): void {
    this.track('redis', role);
    owner.on('error', (err: Error) => (isUnavailable(err) ? this.down('redis', role, err, owner) : otherError(err)));
    owner.getBackend().on('ready', () => this.up('redis', role, owner));
  }

  /**
   * A pg Pool: an idle connection the server drops is an `error`; a request's failed connect is reported by
   * `reportFailure`. While down, the pool's next new connection means the database answers again.
   */
  watchPostgres(pool: EventEmitter, role: string): void {
    this.track('postgres', role);
    this.pools.set(role, pool);
    pool.on('error', (err: Error) => this.down('postgres', role, err, pool));
  }

  /**
   * An error a request or a task met: if it is PostgreSQL's unavailability (Redis's are told by its
   * connections), the role is down. Answers whether the error was a dependency's unavailability.
   */
  reportFailure(err: unknown, role = 'queries'): boolean {
    const cause = (err as { driverError?: unknown })?.driverError ?? err;
    if (!isUnavailable(err) && !isUnavailable(cause)) return false;
    if (isPostgresError(cause)) this.down('postgres', role, cause as Error, this.pools.get(role) ?? REQUESTS);
    return true;
  }

  private track(dependency: Dependency, role: string): void {
    const key = `${dependency}/${role}`;
    if (!this.roles.has(key)) this.roles.set(key, { dependency, role, up: true, downs: 0, ups: 0, downConnections: new Set() });
  }

  private down(dependency: Dependency, role: string, err: Error, connection: object): void {
    this.track(dependency, role);
    const state = this.roles.get(`${dependency}/${role}`)!;
    state.downConnections.add(connection);
    if (!state.up) return;
    state.up = false;
    state.downs++;
    state.downSince = Date.now();
    // No stack: the reason is the class and code (ECONNREFUSED, 57P01) and the driver's one-line message.
    const reason = { type: err?.name, code: (err as { code?: unknown })?.code, message: err?.message?.split('\n', 1)[0] };
    this.logger.warn({ dependency, role, state: 'down', reason }, `${dependency} unreachable (${role})`);
    if (dependency === 'postgres') {
      // A new connection, not the next one handed out: an idle connection the server dropped may be handed
      // out before its own error arrives, and would end the outage only to start another.
      this.pools.get(role)?.once('connect', () => {
        state.downConnections.clear();
        this.up(dependency, role);
      });
    }
  }

  private up(dependency: Dependency, role: string, connection?: object): void {
    const state = this.roles.get(`${dependency}/${role}`);
    if (connection) state?.downConnections.delete(connection);
    if (!state || state.up || state.downConnections.size > 0) return;
    state.up = true;
    state.ups++;
    const downForMs = Date.now() - (state.downSince ?? Date.now());
    this.logger.log({ dependency, role, state: 'up', downForMs }, `${dependency} reachable again (${role})`);
  }
}

/**
 * ioredis's words for a Redis it cannot reach: its command queue's, and a cluster client's while it has no
 * node to send to. A cluster that answers but serves no slot (CLUSTERDOWN) is not among them: like a
 * refused script, it is an error that keeps queue work from running while Redis answers.
 */
const REDIS_UNREACHABLE =
  /Stream isn't writeable|Connection is closed|Cluster isn't ready|None of startup nodes is available|Failed to refresh slots cache|Cluster is ended/i;

/**
 * Of the unavailability errors a request or task meets, Redis's come from ioredis's command queue (its
 * connection errors are told by the connection itself); the rest are PostgreSQL's: the server's SQLSTATE,
 * the pool's connect timeout, a refused or reset connection.
 */
function isPostgresError(err: unknown): boolean {
  const e = err as { message?: unknown; name?: unknown };
  const message = typeof e?.message === 'string' ? e.message : '';
  return e?.name !== 'MaxRetriesPerRequestError' && !REDIS_UNREACHABLE.test(message);
}

/** Errors of the network or of a backing service being down, from pg, ioredis or TypeORM. */
export function isUnavailable(error: unknown): boolean {
  const e = error as { code?: string; message?: string; name?: string };
  if (!e || typeof e !== 'object') return false;
  // Network errors; PostgreSQL: admin shutdown, cannot connect now, too many connections, database gone.
  if (
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', '57P01', '57P02', '57P03', '53300', '3D000'].includes(e.code ?? '')
  ) {
    return true;
  }
  const message = e.message ?? '';
  return (
    /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect|not currently accepting connections|MaxRetriesPerRequestError/i.test(
      message,
    ) ||
    REDIS_UNREACHABLE.test(message) ||
    e.name === 'MaxRetriesPerRequestError'
  );
}

/** The one DependencyStatus of an app (API, worker or CLI), for every module that owns a connection. */
@Global()
@Module({ providers: [DependencyStatus], exports: [DependencyStatus] })
export class ObservabilityModule {}
