import type { Mode, TenantScope } from '../../database/tenant-owned.entity';

export { MODES } from '../../database/modes';
export type { Mode } from '../../database/tenant-owned.entity';

export const ROLES = ['OWNER', 'ADMIN', 'STAFF'] as const;
export type Role = (typeof ROLES)[number];

/** OWNER > ADMIN > STAFF. */
export const ROLE_RANK: Record<Role, number> = { OWNER: 3, ADMIN: 2, STAFF: 1 };

export const SCOPES = [
  'patients:read',
  'patients:write',
  'forms:read',
  'forms:write',
  'scheduling:read',
  'scheduling:write',
  'emails:read',
  'emails:write',
  'sms:read',
  'sms:write',
  'settings:read',
  'settings:write',
  'webhooks:read',
  'webhooks:write',
] as const;
export type Scope = (typeof SCOPES)[number];

/** Who is calling: built by ApiKeyGuard, passed first to every service method. */
export interface AuthContext extends TenantScope {
  tenantId: string;
  tenantName: string;
  mode: Mode;
  apiKeyId: string;
  keyName: string;
  role: Role;
  /** null: every scope. */
  scopes: Scope[] | null;
  expiresAt: Date | null;
}

export function hasScope(auth: Pick<AuthContext, 'scopes'>, scope: Scope): boolean {
  return auth.scopes === null || auth.scopes.includes(scope);
}

/** Verifies the Authorization header; provided by the ApiKeys module. */
export abstract class Authenticator {
  abstract authenticate(authorizationHeader: string | undefined): Promise<AuthContext>;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by ApiKeyGuard on authenticated routes. */
    auth?: AuthContext;
  }
}
