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
