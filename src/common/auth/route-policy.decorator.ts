import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiExtension } from '@nestjs/swagger';
import { ApiErrors } from '../http/openapi/openapi';
import type { Role, Scope } from './auth.types';

export const ROUTE_POLICY = 'routePolicy';
export const BEARER_SCHEME = 'apiKey';

export interface RoutePolicy {
  public?: boolean;
  /** The scope a key needs (keys with `scopes: null` have all). */
  scope?: Scope;
  /** The roles allowed; absent: any role. */
  roles?: Role[];
  /**
   * A body member that, when sent, reads data of another scope, which the key needs too: a preview's
   * `patientId` shows that patient's name, email and phone, so `{ patientId: 'patients:read' }`.
   */
  scopesWhenSent?: Record<string, Scope>;
}

/** The extra scopes of a policy in words, for its OpenAPI extension and the route-policy table. */
export function scopesWhenSentText(policy: RoutePolicy): string | null {
  const entries = Object.entries(policy.scopesWhenSent ?? {});
  return entries.length ? entries.map(([member, scope]) => `${scope} when ${member} is sent`).join(', ') : null;
}

/** A route's policy as the guards read it: the handler's, else its controller's. */
export function routePolicyOf(handler: object, controller: object): RoutePolicy | undefined {
  return (Reflect.getMetadata(ROUTE_POLICY, handler) ?? Reflect.getMetadata(ROUTE_POLICY, controller)) as RoutePolicy | undefined;
}

/**
 * The route's access policy in one line: a valid key, plus the scope and roles it needs (docs/api.md lists them).
 * Also writes the OpenAPI security (the error responses follow from it, see documentErrors). A route without a policy is refused.
 */
export function Authenticated(policy: Omit<RoutePolicy, 'public'> = {}): MethodDecorator & ClassDecorator {
  return applyDecorators(
    SetMetadata(ROUTE_POLICY, policy),
    ApiBearerAuth(BEARER_SCHEME),
    ApiExtension('x-required-scope', policy.scope ?? null),
    ...(policy.scopesWhenSent ? [ApiExtension('x-required-scopes-when-sent', policy.scopesWhenSent)] : []),
    ApiExtension('x-allowed-roles', policy.roles ?? ['OWNER', 'ADMIN', 'STAFF']),
    // Its 401/403/429 responses follow from the security and these extensions (documentErrors).
    ApiErrors(),
  );
}

/** Open without a key (health, metrics, public pages). */
export function Public(): MethodDecorator & ClassDecorator {
  return SetMetadata(ROUTE_POLICY, { public: true } satisfies RoutePolicy);
}
