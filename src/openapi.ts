import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { OpenAPIObject } from '@nestjs/swagger';
import { BEARER_SCHEME } from './common/auth/route-policy.decorator';
import { addNamedSchemas, documentErrors, documentFilterExamples } from './common/http/openapi/openapi';
import { documentIdempotency } from './common/idempotency/openapi';
import { documentTrafficControl } from './common/traffic/openapi';

/** Every tag an operation may use, in the order Swagger UI shows them. A new module adds its tag here. */
export const OPENAPI_TAGS: { name: string; description: string }[] = [
  {
    name: 'Patients',
    description: 'Patients, their tags, custom fields and clinical data (FHIR R4 subset), and bulk import.',
  },
  {
    name: 'Scheduling',
    description:
      'Providers with their working hours (IANA timezones) and time off, appointment types with their booking policies, free slots, and appointments (booking, changes, iCalendar).',
  },
  {
    name: 'Patient self-service',
    description:
      "An appointment's manage link (`manageUrl`, no key, limited per client IP): view, confirm, cancel and reschedule it (`/public/appointments/{token}`).",
  },
  {
    name: 'Schedulers',
    description:
      'Public booking pages over providers: managed with a key (`/schedulers`), used without one (`/public/schedulers/{id}`, limited per client IP).',
  },
  { name: 'Forms', description: 'Intake forms with typed fields, and their submissions.' },
  { name: 'SMS', description: 'SMS templates (Handlebars), previewed with their encoding and segment count.' },
  {
    name: 'Email',
    description:
      'Email templates (Handlebars), sending over SMTP through a queue (retried, never lost), the messages sent and their status.',
  },
  { name: 'Events', description: 'What happened in the tenant (`patient.created`, …), in order, for polling or webhooks.' },
  { name: 'Webhooks', description: 'Endpoints that receive events, signed per the Standard Webhooks specification, and their deliveries.' },
  {
    name: 'Settings',
    description: 'Portal, practice and brand settings (free-form JSON objects merged by top-level key), and the audit log.',
  },
  {
    name: 'Test helpers',
    description: 'Test mode only: its clock, which moves forward to run the reminders and sequence steps due by then.',
  },
  { name: 'API keys', description: 'API keys of the caller’s tenant and mode, and `GET /me` (the calling key itself).' },
  { name: 'Health', description: 'Liveness and readiness probes, outside `/api/v1` and without a key.' },
];

const DESCRIPTION = [
  'Multi-tenant REST API for medical practices. Authenticate with `Authorization: Bearer sk_test_…` (test mode) or `sk_live_…` (live mode); test and live data never mix.',
  '',
  'Errors are `application/problem+json` (RFC 9457) with a stable `code`. Lists take `limit` (1–100, default 50) and `cursor`, and answer `nextCursor`.',
  'Every response carries `X-Request-Id`. Creates answer 201 with a `Location` header; deletes answer 204.',
  '',
  'Rate limits are per API key (per client IP without a valid key) over sliding windows; every `/api/v1` response carries `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset` (Unix seconds) for the tightest window and the IETF `RateLimit-Policy` / `RateLimit` fields; 429 `rate_limited` carries `Retry-After`. A refused request uses no quota. While Redis is unreachable each API instance counts with the same limits in its own memory (never unlimited, and no 503 for it).',
  'Every authenticated POST takes an `Idempotency-Key` (1–255 characters) that makes retries safe for 24 hours.',
  '',
  'Examples work on a new tenant as they are pre-filled (ids aside: create the records they name first). Dates that must lie ahead (appointment times, availability ranges, time off, a key’s expiry) carry `x-example-from-now`: a number of days after the next Monday (UTC) and a time. The document served here computes their `example` from that rule when it is served, so they never lie in the past; the `openapi.json` committed with the code carries the rule without a date. Every other example date is in the past and stays valid.',
].join('\n');

/** The security scheme's description: what Swagger UI's Authorize dialog says about keys. */
const KEYS_DESCRIPTION = [
  'Paste an API key (without `Bearer `). The first keys of a tenant come from the operator: `node dist/cli.js tenants:create --name "Acme Clinic"` prints a test and a live OWNER key, shown this once; with a key, `POST /api/v1/settings/portal-access-keys` issues more (a role and scopes at most the caller’s).',
  '',
  '`sk_test_…` keys read and write only test-mode data (staging), `sk_live_…` keys only live-mode data; the two never mix. A test key is limited by default to 10 requests a second, 100 an hour and 1,000 a day; a live key to 100 a second and 10,000 an hour (`GET /api/v1/me` shows your key’s limits and what is left).',
  '',
  'Swagger UI keeps the key in this browser’s local storage across reloads until you log out here.',
].join('\n');

/**
 * The OpenAPI document of an app whose routes are registered (a running app or a preview one).
 *
 * Its first server is `/`, which Swagger UI and clients resolve against the address they loaded the document
 * from: "Try it out" then calls the origin the page came from, whichever name (localhost, 127.0.0.1, an
 * internal host, a proxy's https) it was reached by, and the CSP's `connect-src 'self'` allows it. Paths
 * carry their `/api/v1` prefix because /health/* lives outside it. `publicUrl` (PUBLIC_URL when set) is
 * a second server, for a page reached under another name or behind a proxy's path prefix.
 */
export function buildOpenApiDocument(app: INestApplication, publicUrl?: string): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setTitle('Practice Management API')
    .setVersion('1.0.0')
    .setDescription(DESCRIPTION)
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'sk_test_… / sk_live_…', description: KEYS_DESCRIPTION }, BEARER_SCHEME)
    .addServer('/', 'The address this document was loaded from; paths include their /api/v1 prefix');
  if (publicUrl) builder.addServer(publicUrl, 'This deployment’s PUBLIC_URL');
  for (const tag of OPENAPI_TAGS) builder.addTag(tag.name, tag.description);
  const document = SwaggerModule.createDocument(app, builder.build(), {
    // A route without an explicit operationId gets a name the operationId check rejects, naming the handler.
    operationIdFactory: (controller, method) => `${controller}.${method}`,
  });
  addNamedSchemas(document);
  documentErrors(document);
  documentFilterExamples(document);
  documentTrafficControl(document);
  documentIdempotency(document);
  markPublicOperations(document);
  return document;
}

/** Routes declared @Public() have no bearer security; say so explicitly (`security: []`). */
function markPublicOperations(document: OpenAPIObject): void {
  for (const item of Object.values(document.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch'] as const) {
      const operation = item[method];
      if (operation && !operation.security?.length) operation.security = [];
    }
  }
}
