import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthContext } from './auth.types';

export interface RateLimitBudget {
  window: string;
  limit: number;
  remaining: number;
  reset: number;
}

/** Reports a key's remaining budget without consuming any; provided by the traffic-control module. */
export abstract class RateLimitInspector {
  abstract budget(auth: AuthContext): Promise<RateLimitBudget[]>;
}

/**
 * Counts a request whose key is missing or invalid against its client IP, so that key guessing is limited
 * too; throws 429 when the IP is over its limit. Provided by the traffic-control module, called by ApiKeyGuard.
 */
export abstract class UnauthenticatedRateLimit {
  abstract limitByIp(request: FastifyRequest, reply: FastifyReply): Promise<void>;
}
