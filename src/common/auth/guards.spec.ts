import { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { InvalidApiKeyException } from './auth.exceptions';
import { AuthContext, Authenticator } from './auth.types';
import { ApiKeyGuard, RoleGuard, ScopeGuard } from './guards';
import { RoutePolicy } from './route-policy.decorator';

const auth = (over: Partial<AuthContext> = {}): AuthContext => ({
  tenantId: 't',
  tenantName: 'T',
  mode: 'test',
  apiKeyId: 'k',
  keyName: 'key',
  role: 'STAFF',
  scopes: null,
  expiresAt: null,
  ...over,
});

function context(request: Record<string, unknown>): ExecutionContext {
  return {
    getHandler: () => () => undefined,
    getClass: () => class {},
    switchToHttp: () => ({ getRequest: () => request, getResponse: () => ({}) }),
  } as unknown as ExecutionContext;
}

const reflectorWith = (policy: RoutePolicy | undefined): Reflector => ({ getAllAndOverride: () => policy }) as unknown as Reflector;

describe('ApiKeyGuard', () => {
  const authenticator: Authenticator = { authenticate: jest.fn(async () => auth()) };
  const ipLimit = { limitByIp: jest.fn(async () => undefined) };

  it('refuses a route that declares no policy', async () => {
    await expect(
      new ApiKeyGuard(reflectorWith(undefined), authenticator, ipLimit).canActivate(context({ headers: {} })),
    ).rejects.toMatchObject({
      code: 'insufficient_scope',
      detail: 'This route declares no access policy',
    });
  });

  it('lets a public route through without authenticating', async () => {
    const authenticate = jest.fn();
    await expect(
      new ApiKeyGuard(reflectorWith({ public: true }), { authenticate }, ipLimit).canActivate(context({ headers: {} })),
    ).resolves.toBe(true);
    expect(authenticate).not.toHaveBeenCalled();
  });

  it('puts the AuthContext on the request', async () => {
    const request: Record<string, unknown> = { headers: { authorization: 'Bearer x' } };
    await new ApiKeyGuard(reflectorWith({}), authenticator, ipLimit).canActivate(context(request));
    expect(request.auth).toEqual(auth());
  });

  it('counts a refused key against the client IP, then refuses it', async () => {
    const refusing: Authenticator = { authenticate: jest.fn(async () => Promise.reject(new InvalidApiKeyException())) };
    ipLimit.limitByIp.mockClear();
    await expect(new ApiKeyGuard(reflectorWith({}), refusing, ipLimit).canActivate(context({ headers: {} }))).rejects.toMatchObject({
      code: 'invalid_api_key',
    });
    expect(ipLimit.limitByIp).toHaveBeenCalledTimes(1);
  });
});

describe('ScopeGuard', () => {
  const run = (policy: RoutePolicy, a: AuthContext) => new ScopeGuard(reflectorWith(policy)).canActivate(context({ auth: a }));

  it('allows keys with every scope (null) and keys holding the scope', () => {
    expect(run({ scope: 'patients:write' }, auth({ scopes: null }))).toBe(true);
    expect(run({ scope: 'patients:write' }, auth({ scopes: ['patients:write'] }))).toBe(true);
  });

  it('refuses a key without the scope, naming it', () => {
    expect(() => run({ scope: 'patients:write' }, auth({ scopes: ['patients:read'] }))).toThrow("requires the 'patients:write' scope");
  });

  it('ignores routes without a scope', () => {
    expect(run({}, auth({ scopes: [] }))).toBe(true);
  });

  it("asks a scopesWhenSent member's scope only when the body sends it", () => {
    const policy: RoutePolicy = { scope: 'emails:write', scopesWhenSent: { patientId: 'patients:read' } };
    const send = (body: unknown, scopes: AuthContext['scopes']) =>
      new ScopeGuard(reflectorWith(policy)).canActivate(context({ auth: auth({ scopes }), body }));
    expect(() => send({ patientId: 'p' }, ['emails:write'])).toThrow("Sending patientId requires the 'patients:read' scope as well");
    expect(() => send({ patientId: null }, ['emails:write'])).toThrow('patients:read');
    expect(send({ patientId: 'p' }, ['emails:write', 'patients:read'])).toBe(true);
    expect(send({ patientId: 'p' }, null)).toBe(true);
    for (const body of [{ variables: {} }, undefined, null, [], 'patientId']) expect(send(body, ['emails:write'])).toBe(true);
  });
});

describe('RoleGuard', () => {
  const run = (policy: RoutePolicy, a: AuthContext) => new RoleGuard(reflectorWith(policy)).canActivate(context({ auth: a }));

  it('allows listed roles and any role when none is listed', () => {
    expect(run({ roles: ['OWNER', 'ADMIN'] }, auth({ role: 'ADMIN' }))).toBe(true);
    expect(run({}, auth({ role: 'STAFF' }))).toBe(true);
  });

  it('refuses other roles with insufficient_role', () => {
    expect(() => run({ roles: ['OWNER', 'ADMIN'] }, auth({ role: 'STAFF' }))).toThrow('requires the OWNER or ADMIN role');
  });
});
