import type { MediaTypeObject, OpenAPIObject, OperationObject, ParameterObject, ReferenceObject, SchemaObject } from '@nestjs/swagger';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { EXAMPLE_FROM_NOW } from '../../src/common/http/openapi/example-dates';
import { clock } from '../../src/common/time/clock';
import { call, createTenant } from '../helpers/app';
import { runCli } from '../helpers/cli';
import { inline, operationsOf } from '../helpers/openapi';
import { NO_RATE_LIMITS } from '../helpers/patients';
import { useApp } from '../helpers/use-app';

type Schema = SchemaObject | ReferenceObject;
type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
interface Operation {
  method: Method;
  path: string;
  op: OperationObject;
}

/**
 * The examples of the OpenAPI document are what an integrator first sends ("Try it out"), so
 * they must work. Every operation of the document is called with its documented request example — the
 * media type's `example`, else the one Swagger UI composes from the schema's property examples — and must
 * answer 2xx with a body that matches its documented response schema. Routes added later join without an
 * edit here. Ids are the one thing an example cannot know: a body's `…Id`/`…Ids` and a path's `{…}` are
 * filled with the ids of records this test created earlier from other examples (creates run first,
 * deletes last). Examples that name no record must work alone on a tenant that has nothing, and no example
 * date may go stale.
 */
describe('OpenAPI examples work as documented', () => {
  const suite = useApp({ ...NO_RATE_LIMITS, WORKERS: 'off', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  let doc: OpenAPIObject;

  beforeAll(async () => {
    doc = (await call<OpenAPIObject>(suite.app, 'GET', '/api/docs-json')).body;
  });

  const resolve = (schema: Schema | undefined): SchemaObject => {
    if (schema && '$ref' in schema) return resolve(doc.components!.schemas![schema.$ref.split('/').pop()!]);
    if (schema?.allOf)
      return schema.allOf
        .map(resolve)
        .reduce<SchemaObject>((a, b) => ({ ...a, ...b, properties: { ...a.properties, ...b.properties } }), {});
    return schema ?? {};
  };

  /** The example Swagger UI shows: the schema's example, else enum/default, else one built from its properties. */
  const exampleOf = (raw: Schema, depth = 0): unknown => {
    const schema = resolve(raw);
    if (schema.example !== undefined) return schema.example;
    if (schema.enum) return schema.enum[0];
    if (schema.default !== undefined) return schema.default;
    if (schema.anyOf || schema.oneOf) return exampleOf((schema.anyOf ?? schema.oneOf)![0], depth + 1);
    if (schema.type === 'array') return depth > 4 ? [] : [exampleOf(schema.items ?? {}, depth + 1)];
    if (schema.type === 'object' || schema.properties) {
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => [k, exampleOf(v, depth + 1)]));
    }
    if (schema.type === 'integer' || schema.type === 'number') return 0;
    if (schema.type === 'boolean') return true;
    const byFormat: Record<string, string> = {
      email: 'user@example.com',
      uuid: '3fa85f64-5717-4562-b3fc-2c963f66afa6',
      'date-time': new Date().toISOString(),
      date: new Date().toISOString().slice(0, 10),
    };
    return byFormat[String(schema.format)] ?? 'string';
  };

  /** OpenAPI 3.0's `nullable` as JSON Schema (`anyOf` with null), and refs into the registered document. */
  const toJsonSchema = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(toJsonSchema);
    if (!value || typeof value !== 'object') return value;
    const { nullable, ...rest } = value as Record<string, unknown>;
    const out = Object.fromEntries(
      Object.entries(rest).map(([k, v]) => [
        k,
        k === '$ref' ? String(v).replace(/^#\/components/, 'openapi#/components') : toJsonSchema(v),
      ]),
    );
    return nullable ? { anyOf: [out, { type: 'null' }] } : out;
  };

  const apiOperations = (): Operation[] =>
    Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/api/v1/'))
      .flatMap(([path, item]) =>
        (['get', 'post', 'put', 'patch', 'delete'] as const)
          .filter((m) => item[m])
          .map((m) => ({ method: m.toUpperCase() as Method, path, op: item[m]! })),
      );
  const hasParams = (o: Operation): boolean => o.path.includes('{');
  /** A request's documented example: the media type's `example`, else the first of its `examples` (as Swagger UI shows), else one built from the schema. */
  const requestExample = (media: MediaTypeObject): unknown =>
    (media.example as unknown) ?? (inline(Object.values(media.examples ?? {})[0])?.value as unknown) ?? exampleOf(media.schema ?? {});
  /** Creates whose example names other records (`…Id` with an id, not an `externalId` of yours) run after those that name none. */
  const namesIds = (o: Operation): boolean => {
    const media = inline(o.op.requestBody)?.content?.['application/json'];
    return !!media && /Ids?":\[?"[0-9a-f]{8}-[0-9a-f]{4}-/.test(JSON.stringify(requestExample(media)));
  };

  // Routes whose precondition no earlier example can produce; each is covered by its own suite.
  const NOT_FROM_EXAMPLES: Record<string, string> = {
    'POST /api/v1/public/unsubscribe/{token}': "the token arrives only in an email's List-Unsubscribe header (email-consent.e2e-spec.ts)",
    'GET /api/v1/public/unsubscribe/{token}': 'the same token: the page of the link (unsubscribe-page.e2e-spec.ts)',
    'POST /api/v1/public/schedulers/{id}/page/hold': "a browser's form post of the hosted booking page (booking-page.e2e-spec.ts)",
    'POST /api/v1/public/schedulers/{id}/page/book': 'the same page, after the hold (booking-page.e2e-spec.ts)',
    'POST /api/v1/public/sms/twilio/status': 'only Twilio signs its callbacks (X-Twilio-Signature; sms.e2e-spec.ts signs them as it does)',
    'POST /api/v1/public/sms/twilio/inbound': 'the same signature (sms.e2e-spec.ts)',
    ...Object.fromEntries(
      ['GET ', 'POST /accept', 'POST /decline'].map((route) => {
        const [method, tail] = route.split(' ');
        return [
          `${method} /api/v1/public/waitlist-offers/{token}${tail}`,
          "the token arrives only in a waitlist offer's message (waitlist.e2e-spec.ts)",
        ];
      }),
    ),
    ...Object.fromEntries(
      ['GET ', 'POST /confirm', 'POST /cancel', 'GET /availability', 'GET /calendar.ics', 'POST /reschedule'].map((route) => {
        const [method, tail] = route.split(' ');
        return [
          `${method} /api/v1/public/appointments/{token}${tail}`,
          "the token arrives only in an appointment's manageUrl (manage-links.e2e-spec.ts)",
        ];
      }),
    ),
  };

  it('every create whose example names no other record works as pre-filled on a tenant that has nothing yet', async () => {
    // Callbacks a provider signs are no creates of an integrator's (sms.e2e-spec.ts signs them as Twilio does).
    const creates = apiOperations().filter((o) => o.method === 'POST' && !hasParams(o) && !namesIds(o) && !o.path.includes('/public/sms/'));
    expect(creates.map((o) => o.path)).toEqual(expect.arrayContaining(['/api/v1/patients', '/api/v1/scheduling/providers']));
    const failures: string[] = [];
    for (const { path, op } of creates) {
      const fresh = await createTenant(suite.app);
      const media = inline(op.requestBody)?.content?.['application/json'];
      const res = await call(suite.app, 'POST', path, { key: fresh.testKey, body: media ? requestExample(media) : undefined });
      if (res.status >= 300) failures.push(`POST ${path}: ${res.status} ${res.text.slice(0, 300)}`);
    }
    expect(failures).toEqual([]);
  });

  it('every request example answers 2xx, and every response matches its documented schema', async () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ $id: 'openapi', components: toJsonSchema(doc.components) });

    const operations = apiOperations();
    const failures: string[] = [];
    let sent = 0;
    interface Step {
      method: Method;
      url: string;
      body: unknown;
    }
    /**
     * What an integrator does around an example whose precondition no example sets up, through the API
     * (`url` is the example's, its ids filled in): the calls before it and after it, each expected to be 2xx.
     */
    const AROUND: Record<string, { before: (url: string) => Step[]; after?: (url: string) => Step[] }> = {
      // A sequence is created a draft and enrolment takes an active one.
      'POST /api/v1/emails/sequences/{id}/enroll': {
        before: (url) => [{ method: 'PATCH', url: url.replace(/\/enroll$/, ''), body: { status: 'active' } }],
      },
    };
    const runSteps = async (where: string, steps: Step[]): Promise<void> => {
      for (const step of steps) {
        const res = await call(suite.app, step.method, step.url, { key: suite.tenant.testKey, body: step.body });
        if (res.status >= 300)
          failures.push(
            `${where}: ${step.method} ${step.url} ${JSON.stringify(step.body)} answered ${res.status} ${res.text.slice(0, 300)}`,
          );
      }
    };
    const ordered = [
      ...operations.filter((o) => o.method === 'POST' && !hasParams(o) && !namesIds(o)),
      ...operations.filter((o) => o.method === 'POST' && !hasParams(o) && namesIds(o)),
      ...operations.filter((o) => o.method === 'GET' || (o.method === 'POST' && hasParams(o))),
      // Changes after the reads: an example may deactivate what a public page needs (a scheduler's isActive).
      ...operations.filter((o) => o.method === 'PUT' || o.method === 'PATCH'),
      ...operations.filter((o) => o.method === 'DELETE'),
    ];

    /** Ids of the records created so far, by the path segment (or response field) that named them. */
    const ids: Record<string, string> = {};
    // Ids are also kept per module (`emails/templates` beside `templates`), and a module's own are preferred:
    // an email sequence's templateId names an email template, not an SMS one.
    let currentModule = '';
    const keep = (name: string, id: string): void => {
      ids[`${currentModule}/${name}`] ??= id;
      ids[name] ??= id;
    };
    const remember = (path: string, body: unknown): void => {
      if (!body || typeof body !== 'object') return;
      const segment = path
        .split('/')
        .filter((s) => !s.startsWith('{'))
        .pop()!;
      const idOf = (record: unknown): unknown => (record as { id?: unknown } | null | undefined)?.id;
      const id = idOf(body);
      if (typeof id === 'string') keep(segment, id);
      for (const [key, value] of Object.entries(body)) {
        if (typeof value === 'string' && key.endsWith('Id')) keep(key.slice(0, -2), value);
        // A list's first item names a record of that collection (events are only ever listed).
        const firstId = Array.isArray(value) ? idOf(value[0]) : undefined;
        if (typeof firstId === 'string') keep(key, firstId);
      }
    };
    // Where a name does not lead to its collection by itself.
    const ALIASES: Record<string, string[]> = { appointment: ['book'], key: ['portal-access-keys'], delivery: ['test'] };
    const idFor = (name: string): string | undefined => {
      const base = name.replace(/Ids?$/, '');
      const kebab = base.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
      const candidates = [base, `${base}s`, kebab, `${kebab}s`, ...(ALIASES[base] ?? [])];
      return candidates.map((c) => ids[`${currentModule}/${c}`] ?? ids[c]).find((x) => x !== undefined);
    };
    const withIds = (value: unknown, key = ''): unknown => {
      if (Array.isArray(value)) return key.endsWith('Ids') && idFor(key) ? [idFor(key)] : value.map((v) => withIds(v));
      if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withIds(v, k)]));
      return key.endsWith('Id') && typeof value === 'string' && idFor(key) ? idFor(key) : value;
    };

    for (const { method, path, op } of ordered) {
      const where = `${method} ${path}`;
      if (NOT_FROM_EXAMPLES[where]) continue;
      currentModule = path.split('/')[3] ?? '';
      let url = path;
      for (const [, name] of path.matchAll(/\{(\w+)\}/g)) {
        const segments = path.split('/');
        const segment = segments[segments.findIndex((s) => s.includes(`{${name}}`)) - 1];
        const id = name === 'id' ? (ids[`${currentModule}/${segment}`] ?? ids[segment] ?? idFor(segment.replace(/s$/, ''))) : idFor(name);
        if (!id) {
          failures.push(`${where}: no record to fill {${name}} with (create one from an example first)`);
          url = '';
          break;
        }
        url = url.replace(`{${name}}`, id);
      }
      if (!url) continue;
      const query = ((op.parameters ?? []) as ParameterObject[])
        .filter((p) => p.in === 'query' && p.required)
        .map((p) => `${p.name}=${encodeURIComponent(String(idFor(p.name) ?? p.example ?? exampleOf(p.schema ?? {})))}`);
      if (query.length) url += `?${query.join('&')}`;
      const media = inline(op.requestBody)?.content?.['application/json'];
      const body = media ? withIds(requestExample(media)) : undefined;
      await runSteps(where, AROUND[where]?.before(url) ?? []);
      // Sent as pre-filled: the example dates are computed when the document is served, so their slots are free.
      const res = await call(suite.app, method, url, { key: suite.tenant.testKey, body });
      sent++;
      await runSteps(where, AROUND[where]?.after?.(url) ?? []);
      if (res.status >= 300) {
        failures.push(`${where}: ${res.status} ${res.text.slice(0, 300)} — sent ${JSON.stringify(body)?.slice(0, 300)}`);
        continue;
      }
      remember(path, res.body);
      const documented = op.responses?.[String(res.status)];
      if (!documented) {
        failures.push(`${where}: answered ${res.status}, which it does not document`);
        continue;
      }
      const schema = inline(documented)?.content?.['application/json']?.schema;
      if (schema && res.body !== undefined) {
        const validate = ajv.compile(toJsonSchema(schema) as object);
        if (!validate(res.body))
          failures.push(`${where}: the ${res.status} body does not match its schema: ${ajv.errorsText(validate.errors)}`);
        const example = exampleOf(schema);
        if (!validate(example))
          failures.push(`${where}: the documented ${res.status} example does not match its schema: ${ajv.errorsText(validate.errors)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(40);
  }, 120_000);

  /** Every example a request body documents: its `example`, else each of its named `examples`, else the one Swagger UI composes. */
  const requestExamples = (media: MediaTypeObject): { name: string; value: unknown; preFilled: boolean }[] => {
    if (media.example !== undefined) return [{ name: 'example', value: media.example as unknown, preFilled: true }];
    const named = Object.entries(media.examples ?? {}).map(([name, ex], i) => ({
      name,
      value: inline(ex)?.value as unknown,
      preFilled: i === 0,
    }));
    return named.length ? named : [{ name: 'composed', value: exampleOf(media.schema ?? {}), preFilled: true }];
  };
  /** A member naming records of the API (not an `externalId` of yours), with an id in it (not `[]` or null). */
  const namesRecord = (key: string, value: unknown): boolean =>
    /Ids?$/.test(key) && key !== 'externalId' && (typeof value === 'string' || (Array.isArray(value) && value.length > 0));
  /**
   * Walks an example beside its schema and gives each id member to `visit` with whether the schema requires it;
   * what `visit` answers replaces the member.
   */
  const mapIds = (
    value: unknown,
    raw: Schema,
    visit: (key: string, value: unknown, required: boolean, at: string) => unknown,
    at = '',
  ): unknown => {
    const schema = resolve(raw);
    if (Array.isArray(value)) return value.map((v, i) => mapIds(v, schema.items ?? {}, visit, `${at}.${i}`));
    if (!value || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, v]) => {
        const where = at ? `${at}.${key}` : key;
        if (namesRecord(key, v)) return [key, visit(key, v, (schema.required ?? []).includes(key), where)];
        return [key, mapIds(v, schema.properties?.[key] ?? {}, visit, where)];
      }),
    );
  };
  const bodyWrites = (): Operation[] =>
    apiOperations().filter((o) => ['POST', 'PUT', 'PATCH'].includes(o.method) && inline(o.op.requestBody)?.content?.['application/json']);

  it('pre-fills no optional id in a request body: the id Swagger UI would put there names nothing', () => {
    const prefilled: string[] = [];
    for (const { method, path, op } of bodyWrites()) {
      const media = inline(op.requestBody)!.content['application/json'];
      for (const { value } of requestExamples(media).filter((e) => e.preFilled)) {
        mapIds(value, media.schema ?? {}, (_key, v, required, at) => {
          if (!required) prefilled.push(`${method} ${path}: ${at}`);
          return v;
        });
      }
    }
    expect(prefilled).toEqual([]);
  });

  it('after seed:demo, every POST, PUT and PATCH example answers 2xx, its required ids and path naming demo records', async () => {
    // The README's first step after creating a tenant, run as the README runs it.
    const tenant = await createTenant(suite.app);
    const run = await runCli(['seed:demo', '--tenant', tenant.id, '--json']);
    expect(run.code).toBe(0);
    const demo = JSON.parse(run.stdout) as { ids: Record<string, string[]>; records: { appointment: { id: string } } };
    const demoIds: Record<string, string> = {
      patient: demo.ids.patients[0],
      provider: demo.ids.providers[0],
      appointmentType: demo.ids.appointmentTypes[0],
      // One still scheduled, as the summary's manage link names: its example changes need one.
      appointment: demo.records.appointment.id,
      scheduler: demo.ids.schedulers[0],
      form: demo.ids.forms[0],
      sequence: demo.ids.emailSequences[0],
      'emails/template': demo.ids.emailTemplates[0],
      'sms/template': demo.ids.smsTemplates[0],
    };
    const idOf = (name: string, path: string): string | undefined => {
      const base = name.replace(/Ids?$/, '');
      return demoIds[base] ?? demoIds[`${path.split('/')[3]}/${base}`];
    };
    /** The demo record a path's `{id}` names: by the collection segment before it. */
    const pathId = (path: string, param: string): string | undefined => {
      const segments = path.split('/');
      const collection = segments[segments.findIndex((s) => s === `{${param}}`) - 1];
      const singular = collection.replace(/s$/, '').replace(/-(\w)/g, (_m, c: string) => c.toUpperCase());
      return param === 'id' ? idOf(singular, path) : idOf(param, path);
    };

    const failures: string[] = [];
    const skipped: string[] = [];
    let sent = 0;
    const ordered = [
      ...bodyWrites().filter((o) => o.method === 'POST' && !hasParams(o)),
      ...bodyWrites().filter((o) => o.method === 'POST' && hasParams(o)),
      ...bodyWrites().filter((o) => o.method !== 'POST'),
    ];
    // The demo's reminders come due on the way: running them takes workers, which this suite does not start (test-clocks.e2e-spec.ts runs them).
    const needsWorkers = new Set(['POST /api/v1/test-helpers/clock/advance']);
    for (const { method, path, op } of ordered) {
      if (NOT_FROM_EXAMPLES[`${method} ${path}`] || needsWorkers.has(`${method} ${path}`)) continue;
      let url = path;
      for (const [, param] of path.matchAll(/\{(\w+)\}/g)) url = url.replace(`{${param}}`, pathId(path, param) ?? '');
      // A route under a record the demo does not make (a webhook, a recurring series) runs on the empty tenant of the test above.
      if (url.includes('//') || url.endsWith('/')) {
        skipped.push(path);
        continue;
      }
      const media = inline(op.requestBody)!.content['application/json'];
      for (const example of requestExamples(media)) {
        // The ids the request needs name demo records; an optional one is as the example has it, except in an
        // example picked by name, which names the records of the combination it shows.
        const body = mapIds(example.value, media.schema ?? {}, (key, v, required) => {
          if (!required && example.preFilled) return v;
          const id = idOf(key, path);
          if (!id) return v;
          return Array.isArray(v) ? [id] : id;
        });
        const res = await call(suite.app, method, url, { key: tenant.testKey, body });
        sent++;
        if (res.status >= 300)
          failures.push(
            `${method} ${path} (${example.name}): ${res.status} ${res.text.slice(0, 300)} — sent ${JSON.stringify(body)?.slice(0, 300)}`,
          );
      }
    }
    expect(failures).toEqual([]);
    expect(skipped.filter((path) => !path.startsWith('/api/v1/webhooks/') && !path.startsWith('/api/v1/scheduling/series/'))).toEqual([]);
    expect(sent).toBeGreaterThan(30);
  }, 300_000);

  it('no example date goes stale: each is computed from the clock when served, or lies in the past already', async () => {
    const years = 7;
    const offsetMs = years * 365 * 86_400_000;
    clock.setOffsetMs(offsetMs);
    let moved: unknown;
    try {
      moved = (await call<unknown>(suite.app, 'GET', '/api/docs-json')).body;
    } finally {
      clock.setOffsetMs(0);
    }
    const movedNow = Date.now() + offsetMs;
    const fromNow: string[] = [];
    const problems: string[] = [];
    // Every date anywhere in the document: examples, defaults, and the "Example: …" of descriptions.
    // `unmoved` is the same place in the document served at the real clock: a member of a body's own example
    // (dateFromNow) carries no rule once served, and shows it is computed by moving with the clock.
    const visit = (value: unknown, where: string, unmoved: unknown, owner?: Record<string, unknown>, key?: string): void => {
      const child = (k: string | number): unknown => (unmoved as Record<string, unknown> | undefined)?.[k];
      if (Array.isArray(value)) return value.forEach((v, i) => visit(v, `${where}/${i}`, child(i)));
      if (value && typeof value === 'object') {
        for (const [k, v] of Object.entries(value)) visit(v, `${where}/${k}`, child(k), value as Record<string, unknown>, k);
        return;
      }
      if (typeof value !== 'string') return;
      for (const [date] of value.matchAll(/\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2}))?/g)) {
        const at = Date.parse(date.length === 10 ? `${date}T00:00:00Z` : date);
        if ((key === 'example' && owner?.[EXAMPLE_FROM_NOW]) || (typeof unmoved === 'string' && unmoved !== value)) {
          fromNow.push(where);
          // Ahead of the (moved) clock and within the year a booking horizon allows.
          if (!(at > movedNow - 86_400_000 && at < movedNow + 380 * 86_400_000))
            problems.push(`${where}: ${date} is not near the clock it was served at`);
        } else if (!(at < Date.now())) {
          problems.push(`${where}: ${date} is a fixed date still ahead; it will go stale (use exampleFromNow)`);
        }
      }
    };
    visit(moved, '#', doc);
    expect(problems).toEqual([]);
    expect(fromNow).toEqual(
      expect.arrayContaining([
        '#/components/schemas/BookAppointmentDto/properties/datetime/example',
        '#/components/schemas/CreateApiKeyDto/properties/expiresAt/example',
      ]),
    );
    expect(fromNow.length).toBeGreaterThan(12);
  });

  it('pre-fills no optional query parameter (list filters say their example in the description)', () => {
    const prefilled = operationsOf(doc).flatMap(({ path, method, op }) =>
      ((op.parameters ?? []) as ParameterObject[])
        .filter(
          (p) => p.in === 'query' && !p.required && (p.example !== undefined || p.examples || inline(p.schema)?.example !== undefined),
        )
        .map((p) => `${method.toUpperCase()} ${path} ?${p.name}`),
    );
    expect(prefilled).toEqual([]);
  });
});
