import { ERROR_CODE_NAMES, ERROR_CODES, isErrorCode } from './error-codes';
import { problemOf } from './problem';

/** The codes integrators are promised (docs/api.md, Errors), which the list must hold with these statuses. */
const CONTRACT: Record<string, number> = {
  invalid_json: 400,
  validation_failed: 400,
  missing_api_key: 401,
  invalid_api_key: 401,
  insufficient_scope: 403,
  insufficient_role: 403,
  not_found: 404,
  slot_unavailable: 409,
  series_conflicts: 409,
  invalid_transition: 409,
  form_inactive: 409,
  sequence_not_active: 409,
  external_id_taken: 409,
  idempotency_key_in_use: 409,
  last_owner_key: 409,
  slug_taken: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
};

describe('ERROR_CODES: every problem code in one list', () => {
  it('holds every promised code with its promised status', () => {
    for (const [code, status] of Object.entries(CONTRACT)) {
      expect([code, isErrorCode(code) && ERROR_CODES[code].status]).toEqual([code, status]);
    }
  });

  it('gives each code an error status, a title and when it is answered', () => {
    for (const code of ERROR_CODE_NAMES) {
      const { status, title, when } = ERROR_CODES[code];
      expect([code, status >= 400 && status < 600, title.length > 0, when.length > 0]).toEqual([code, true, true, true]);
      expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
    }
  });

  it('builds exceptions with the status and title of their code', () => {
    const error = problemOf('slug_taken', 'taken');
    expect([error.getStatus(), error.code, error.title, error.detail]).toEqual([409, 'slug_taken', 'Slug taken', 'taken']);
  });
});
