import { ApiException } from '../http/errors/problem';
import type { Role, Scope } from './auth.types';

export class MissingApiKeyException extends ApiException {
  constructor() {
    super(401, 'missing_api_key', 'Missing API key', 'Send the key as Authorization: Bearer sk_test_… or sk_live_…');
  }
}

export class InvalidApiKeyException extends ApiException {
  constructor(detail = 'The API key is not valid') {
    super(401, 'invalid_api_key', 'Invalid API key', detail);
  }
}

export class InsufficientScopeException extends ApiException {
  constructor(scope: Scope | '*', detail = `This endpoint requires the '${scope}' scope`) {
    super(403, 'insufficient_scope', 'Insufficient scope', detail, { requiredScope: scope });
  }
}

export class InsufficientRoleException extends ApiException {
  constructor(roles: Role[], detail = `This endpoint requires the ${roles.join(' or ')} role`) {
    super(403, 'insufficient_role', 'Insufficient role', detail, { requiredRoles: roles });
  }
}

/** A route that declares no policy is a programming error; it is refused, never open. */
export class NoRoutePolicyException extends ApiException {
  constructor() {
    super(403, 'insufficient_scope', 'Forbidden', 'This route declares no access policy');
  }
}
