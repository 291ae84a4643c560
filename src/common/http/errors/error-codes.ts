/**
 * Every problem `code` the API can answer, with its HTTP status and title (docs/api.md, Errors).
 * ApiException takes only these codes, the OpenAPI Problem schema lists them as its `code` enum, and
 * tests check both: a new code is added here, once. Codes of modules not built yet are listed so that
 * every module spells them the same way.
 */
export const ERROR_CODES = {
  invalid_json: { status: 400, title: 'Invalid JSON', when: 'The body is not valid UTF-8 JSON' },
  validation_failed: {
    status: 400,
    title: 'Validation failed',
    when: 'A body, query or header value is missing, of the wrong type or format, unknown, or not storable (NUL, lone surrogates, numbers out of range)',
  },
  bad_request: { status: 400, title: 'Bad request', when: 'The HTTP request is malformed (body framing, ambiguous headers)' },
  missing_api_key: { status: 401, title: 'Missing API key', when: 'No usable Authorization header' },
  invalid_api_key: { status: 401, title: 'Invalid API key', when: 'Unknown, malformed, revoked or expired key' },
  invalid_credentials: {
    status: 401,
    title: 'Invalid credentials',
    when: 'The queue dashboard (/admin/queues) without its username and password (HTTP Basic)',
  },
  insufficient_scope: { status: 403, title: 'Insufficient scope', when: 'The key lacks the scope this endpoint needs' },
  insufficient_role: { status: 403, title: 'Insufficient role', when: 'The key lacks the role this endpoint needs' },
  invalid_signature: {
    status: 403,
    title: 'Invalid signature',
    when: "A provider's callback (Twilio's X-Twilio-Signature) does not verify with its auth token",
  },
  not_found: { status: 404, title: 'Not found', when: 'Unknown route, or an id the caller cannot see (malformed ids included)' },
  request_timeout: { status: 408, title: 'Request timeout', when: 'The request was not received in time' },
  hold_consumed: {
    status: 409,
    title: 'Hold consumed',
    when: 'The hold named has already been booked; `appointmentId` names its appointment',
  },
  hold_expired: { status: 410, title: 'Hold expired', when: 'The hold named has expired or was released: its time is no longer kept' },
  waitlist_entry_exists: {
    status: 409,
    title: 'Waitlist entry exists',
    when: 'The patient already has a waiting entry for this appointment type; `entryId` names it',
  },
  offer_expired: {
    status: 410,
    title: 'Offer expired',
    when: 'The waitlist offer has expired or was withdrawn: its slot is no longer kept',
  },
  slot_unavailable: { status: 409, title: 'Slot unavailable', when: 'The time is outside availability or already booked' },
  series_conflicts: {
    status: 409,
    title: 'Series conflicts',
    when: 'Occurrences of a recurring series cannot be booked or moved (onConflict reject); each is listed in conflicts',
  },
  invalid_transition: { status: 409, title: 'Invalid transition', when: 'The status cannot change this way' },
  change_window_closed: {
    status: 409,
    title: 'Change window closed',
    when: "A patient's link tried to cancel or reschedule after the appointment's changeDeadline",
  },
  form_inactive: { status: 409, title: 'Form inactive', when: 'The form does not accept submissions' },
  sequence_not_active: { status: 409, title: 'Sequence not active', when: 'Only an active sequence takes enrolments' },
  external_id_taken: { status: 409, title: 'External id taken', when: 'Another patient of this tenant and mode has this externalId' },
  custom_field_key_taken: { status: 409, title: 'Custom field exists', when: 'A custom field with this key exists' },
  encounter_exists: { status: 409, title: 'Encounter exists', when: 'An encounter for this appointment is recorded' },
  idempotency_key_in_use: { status: 409, title: 'Idempotency key in use', when: 'The first request with this key is still running' },
  last_owner_key: { status: 409, title: 'Last owner key', when: "Deleting the mode's last active OWNER key" },
  slug_taken: { status: 409, title: 'Slug taken', when: 'Another record of this tenant has this slug' },
  precondition_failed: { status: 412, title: 'Precondition failed', when: 'If-Match does not name the current ETag' },
  payload_too_large: { status: 413, title: 'Payload too large', when: 'The body exceeds the limit of the endpoint' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type', when: 'A body that is not application/json in UTF-8' },
  idempotency_key_reused: { status: 422, title: 'Idempotency key reused', when: 'The Idempotency-Key was used with another request' },
  rate_limited: {
    status: 429,
    title: 'Too many requests',
    when: 'A rate limit is exceeded (counted in Redis, or per instance while Redis is unreachable); see Retry-After',
  },
  headers_too_large: { status: 431, title: 'Request headers too large', when: 'The request headers exceed the server limit' },
  internal_error: { status: 500, title: 'Internal error', when: 'Anything unexpected; it is logged, the body holds no internals' },
  service_unavailable: {
    status: 503,
    title: 'Service unavailable',
    when: 'PostgreSQL is unreachable (Redis being unreachable fails no request: rate limits are then counted per instance)',
  },
} as const satisfies Record<string, { status: number; title: string; when: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The codes in a stable order, for the OpenAPI enum and the tests. */
export const ERROR_CODE_NAMES = Object.keys(ERROR_CODES) as ErrorCode[];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
}
