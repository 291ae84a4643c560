import { Client, ClientConfig } from 'pg';

/**
 * The client every PostgreSQL pool of the app makes. pg-pool takes its own 'error' listener off a client while
 * the client is checked out (a request's transaction, a migration, the audit writer's COPY), so a server that
 * goes away between two of that client's queries would emit an 'error' nobody listens to, and Node would end
 * the process. The queries it was running fail and report the loss (DependencyStatus), and the pool drops the
 * client when it is released; the event itself needs nothing more.
 */
export class PoolClient extends Client {
  constructor(config?: string | ClientConfig) {
    super(config);
    this.on('error', () => undefined);
  }
}
