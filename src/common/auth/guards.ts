import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { InsufficientRoleException, InsufficientScopeException, NoRoutePolicyException } from './auth.exceptions';
import { AuthContext, Authenticator, hasScope } from './auth.types';
import { ROUTE_POLICY, RoutePolicy } from './route-policy.decorator';

/*
 * The three global guards run in this order (AuthModule registers them so):
 *   1. ApiKeyGuard  – the route must declare a policy; unless @Public(), the key must be valid (401)
 *   2. ScopeGuard   – the key must hold the route's scope (403 insufficient_scope)
 *   3. RoleGuard    – the key's role must be one the route allows (403 insufficient_role)
 */

function policyOf(reflector: Reflector, context: ExecutionContext): RoutePolicy | undefined {
  return reflector.getAllAndOverride<RoutePolicy | undefined>(ROUTE_POLICY, [context.getHandler(), context.getClass()]);
}

function authOf(context: ExecutionContext): AuthContext | undefined {
  return context.switchToHttp().getRequest<FastifyRequest>().auth;
}

@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: Authenticator,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const policy = policyOf(this.reflector, context);
    if (!policy) throw new NoRoutePolicyException();
    if (policy.public) return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    request.auth = await this.authenticator.authenticate(request.headers.authorization);
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
