import { CanActivate, ExecutionContext, HttpException, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { InsufficientRoleException, InsufficientScopeException, NoRoutePolicyException } from './auth.exceptions';
import { AuthContext, Authenticator, hasScope } from './auth.types';
import { UnauthenticatedRateLimit } from './rate-limit-inspector';
import { ROUTE_POLICY, RoutePolicy } from './route-policy.decorator';

/*
 * The four global guards run in this order (AuthModule registers them so):
 *   1. ApiKeyGuard    – the route must declare a policy; unless @Public(), the key must be valid (401; the
 *                       refused request is first counted against the client IP, so it may answer 429)
 *   2. RateLimitGuard – (common/traffic) counts the request against the key, or the IP on public routes (429)
 *   3. ScopeGuard     – the key must hold the route's scope, and the scope of each body member named in its
 *                       scopesWhenSent that the request sends (403 insufficient_scope)
 *   4. RoleGuard      – the key's role must be one the route allows (403 insufficient_role)
 */

const policies = new WeakMap<object, RoutePolicy | null>();

/** The route's policy, read from its metadata once per handler (three guards ask on every request). */
function policyOf(reflector: Reflector, context: ExecutionContext): RoutePolicy | undefined {
  const handler = context.getHandler();
  let policy = policies.get(handler);
  if (policy === undefined) {
    policy = reflector.getAllAndOverride<RoutePolicy | undefined>(ROUTE_POLICY, [handler, context.getClass()]) ?? null;
    policies.set(handler, policy);
  }
  return policy ?? undefined;
}

function authOf(context: ExecutionContext): AuthContext | undefined {
  return context.switchToHttp().getRequest<FastifyRequest>().auth;
}

@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: Authenticator,
    private readonly unauthenticatedLimit: UnauthenticatedRateLimit,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const policy = policyOf(this.reflector, context);
    if (!policy) throw new NoRoutePolicyException();
    if (policy.public) return true;
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    try {
      request.auth = await this.authenticator.authenticate(request.headers.authorization);
    } catch (err) {
      // A refused key is still traffic: count it per IP (429 wins over 401 once the IP is over its limit).
      if (err instanceof HttpException && err.getStatus() === 401) {
        await this.unauthenticatedLimit.limitByIp(request, http.getResponse<FastifyReply>());
      }
      throw err;
    }
    return true;
  }
}

@Injectable()
export class ScopeGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const policy = policyOf(this.reflector, context);
    const auth = authOf(context);
    if (!policy?.scope || !auth) return true;
    if (!hasScope(auth, policy.scope)) throw new InsufficientScopeException(policy.scope);
    if (policy.scopesWhenSent) {
      const body: unknown = context.switchToHttp().getRequest<FastifyRequest>().body;
      for (const [member, scope] of Object.entries(policy.scopesWhenSent)) {
        const sent = body !== null && typeof body === 'object' && (body as Record<string, unknown>)[member] !== undefined;
        if (sent && !hasScope(auth, scope)) {
          throw new InsufficientScopeException(scope, `Sending ${member} requires the '${scope}' scope as well`);
        }
      }
    }
    return true;
  }
}

@Injectable()
export class RoleGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const policy = policyOf(this.reflector, context);
    const auth = authOf(context);
    if (!policy?.roles || !auth) return true;
    if (!policy.roles.includes(auth.role)) throw new InsufficientRoleException(policy.roles);
    return true;
  }
}
