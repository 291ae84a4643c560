import { Logger } from '@nestjs/common';
import type { TenantScope } from '../../database/tenant-owned.entity';

/**
 * One way a message leaves: a relay (SMTP, Twilio), the log, or the test capture. `name` is what the
 * message's `transport` column records; `send` answers the relay's id of the message, if it gives one.
 */
export interface MessageTransport<M> {
  readonly name: string;
  send(scope: TenantScope, message: M): Promise<string | null>;
}

/**
 * A try a relay did not accept. `permanent`: it refused the message itself, so trying again cannot help.
 * `summary` names the failure without any recipient data (an SMTP code, a provider status), for job logs.
 */
export class TransportError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
    readonly summary: string = message,
  ) {
    super(message);
    this.name = 'TransportError';
  }
}

/** Test mode without a staging relay: the message is recorded as sent and reaches nobody. */
export const CAPTURE_TRANSPORT: MessageTransport<unknown> = { name: 'test', send: () => Promise.resolve(null) };

/** Live mode without a relay configured: the message is recorded as sent and its id (never its content) logged. */
export function logTransport(channel: string, why: string): MessageTransport<{ id: string }> {
  const logger = new Logger(`${channel}-log-transport`);
  return {
    name: 'log',
    send: (_scope, message) => {
      logger.log(`${channel} ${message.id} delivered to the log transport (${why})`);
      return Promise.resolve(null);
    },
  };
}
