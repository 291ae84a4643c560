import { createHash } from 'node:crypto';
import { Client, ClientConfig } from 'pg';

/** Statement texts marked `prepared()`, and the name each runs under on a connection that names statements. */
const preparedNames = new Map<string, string>();
const MAX_PREPARED = 200;

/**
 * Marks a hot statement of fixed text for PostgreSQL to parse and plan once per connection (a named
 * prepared statement) instead of on every run, where the pool names statements (`namedStatements`, off
 * behind a transaction pooler, whose server connections change under a client). Answers the text, so a
 * constant is written `const GET = prepared(\`SELECT …\`)`. Only for statements whose text does not vary and
 * whose best plan does not depend on the values: after five runs PostgreSQL may choose a generic plan.
 */
export function prepared(text: string): string {
  if (!preparedNames.has(text) && preparedNames.size < MAX_PREPARED) {
    preparedNames.set(text, `s_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`);
  }
  return text;
}

/** Whether `text` was marked `prepared()`: a statement composed around it may be marked too. */
export function isPrepared(text: string): boolean {
  return preparedNames.has(text);
}

export interface PoolClientConfig extends ClientConfig {
  /** Run the statements marked `prepared()` as named prepared statements. */
  namedStatements?: boolean;
}

/**
 * The client every PostgreSQL pool of the app makes.
 *
 * pg-pool takes its own 'error' listener off a client while the client is checked out (a request's
 * transaction, a migration, the audit writer's COPY), so a server that goes away between two of that
 * client's queries would emit an 'error' nobody listens to, and Node would end the process. The queries it
 * was running fail and report the loss (DependencyStatus), and the pool drops the client when it is
 * released; the event itself needs nothing more.
 *
 * With `namedStatements`, a statement marked `prepared()` goes to the server under its name (pg's query
 * config `{ name, text, values }`), everything else as an unnamed statement.
 */
export class PoolClient extends Client {
  private readonly namedStatements: boolean;

  constructor(config?: string | PoolClientConfig) {
    super(config);
    this.namedStatements = typeof config === 'object' && config.namedStatements === true;
    this.on('error', () => undefined);
  }

  override query(...args: unknown[]): never {
    const [text, values] = args;
    const name =
      this.namedStatements && typeof text === 'string' && (args.length === 1 || Array.isArray(values))
        ? preparedNames.get(text)
        : undefined;
    const run = (...a: unknown[]): never => (super.query as (...b: unknown[]) => never).apply(this, a);
    return name ? run({ name, text, values: values ?? [] }, ...args.slice(2)) : run(...args);
  }
}
