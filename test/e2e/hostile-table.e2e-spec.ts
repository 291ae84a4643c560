import type { OpenAPIObject, ParameterObject, ReferenceObject, SchemaObject } from '@nestjs/swagger';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { ERROR_CODE_NAMES, ERROR_CODES, isErrorCode } from '../../src/common/http/errors/error-codes';
import type { CreatedApiKeyDto } from '../../src/modules/api-keys/dto/api-key.dto';
import type { BulkImportAcceptedDto } from '../../src/modules/patients/dto/bulk-import.dto';
import { call, dataSource } from '../helpers/app';
import { inline } from '../helpers/openapi';
import { useApp } from '../helpers/use-app';
import { createPatient, NO_RATE_LIMITS, PATIENTS } from '../helpers/patients';
import { listRoutes } from '../helpers/routes';

/*
 * A table of hostile inputs sent to EVERY route (those of the OpenAPI document, with their schemas, and any
 * other route the app serves): no answer may be a 5xx, and no
 * error body may carry a stack, SQL, or an internal name (a snake_case table or column of the schema,
 * TypeORM, pg, Fastify or Nest internals). Routes are read from the document, so a route added later joins
 * the table without an edit here; path parameters are filled with real ids where the name is known.
 */

/** Routes the app served when this table was written; the list may grow, never silently shrink. */
const ROUTES_TODAY = 42;
/** Each test sends its cases to every route, so it grows with the API; the machine may be shared. */
const TABLE_TIMEOUT = 300_000;

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  template: string;
  pathParams: { name: string; schema: SchemaObject }[];
  queryParams: { name: string; schema: SchemaObject }[];
  body?: SchemaObject;
  /** Takes application/x-www-form-urlencoded (a provider's callback) instead of JSON. */
  form?: boolean;
}

const HOSTILE_VALUES: unknown[] = [
  'x'.repeat(20_000),
  '',
  '   ',
  1e308,
  -1,
  12345678901234567890,
  0.1,
  true,
  null,
  [],
  {},
  ['a', 1, null],
  { nested: { deeper: [1] } },
  '../../../../etc/passwd',
  "' OR 1=1 --",
  '😀',
  '0000-01-01',
  '+300000-01-01T00:00:00.000Z',
  '2026-02-30',
];
const HOSTILE_QUERY_VALUES = [
  'x'.repeat(5_000),
  '',
  '-1',
  '1e400',
  '99999999999999999999',
  'null',
  '..%2F..%2Fetc%2Fpasswd',
  "'%20OR%201=1",
  '0000-01-01T00:00:00Z',
  '%2B300000-01-01',
  '%F0%9F%98%80',
  '%5B%5D',
];
const HOSTILE_IDS = [
  '..%2F..%2F..%2Fetc%2Fpasswd',
  '..',
  '%2e%2e',
  'a'.repeat(300),
  '%E0%A4%A',
  "1'%20OR%201=1",
  'null',
  '-1',
  '00000000-0000-0000-0000-000000000000',
  'ZZZZZZZZ-ZZZZ-ZZZZ-ZZZZ-ZZZZZZZZZZZZ',
  '%20',
];
const PLACEHOLDER_ID = '00000000-0000-4000-8000-000000000000';

/** What no error body may contain: stack frames, SQL, and names of the machinery underneath. */
const INTERNALS =
  /\bat \S+ \(|\.(ts|js):\d+|node_modules|QueryFailedError|[Tt]ype[Oo][Rr][Mm]|\bpg\b|SQLSTATE|\b(SELECT|INSERT INTO|UPDATE|DELETE FROM|WHERE)\b|relation "|column "|duplicate key|violates|syntax error at|FST_ERR|[Ff]astify|@nestjs|\bNest[A-Z]\w+|ExceptionsHandler|\w+Error: |"stack"/;

describe('Hostile input table: every route, no 5xx, no internals', () => {
  let routes: Route[];
  let doc: OpenAPIObject;
  /** Real ids by the collection that precedes a path parameter (`patients` for /patients/{id}/clinical). */
  let knownIds: Record<string, string>;
  let schemaNames: RegExp;
  /** Routes the document leaves out: their body, if any, is not known. */
  const undocumented = new Set<Route>();

  const suite = useApp(NO_RATE_LIMITS);

  beforeAll(async () => {
    const api = suite.api();
    const patient = await createPatient(suite.app, suite.tenant.testKey);
    const job = await api.post<BulkImportAcceptedDto>(`${PATIENTS}/bulk-import`, { patients: [{ firstName: 'A', lastName: 'B' }] });
    const spareKey = await api.post<CreatedApiKeyDto>('/api/v1/settings/portal-access-keys', { name: 'spare', role: 'STAFF' });
    knownIds = { patients: patient.id, 'bulk-import': job.body.jobId, 'portal-access-keys': spareKey.body.id };

    doc = (await call<OpenAPIObject>(suite.app, 'GET', '/api/docs-json')).body;
    routes = Object.entries(doc.paths).flatMap(([template, operations]) =>
      Object.keys(operations)
        .filter((method): method is (typeof METHODS)[number] => (METHODS as readonly string[]).includes(method))
        .map((method) => {
          const op = operations[method]!;
          // The document states every parameter inline (no `$ref`s into components.parameters).
          const params = ((op.parameters ?? []) as ParameterObject[]).map((p) => ({ ...p, schema: resolve(p.schema ?? {}) }));
          const requestBody = inline(op.requestBody);
          return {
            method: method.toUpperCase() as Route['method'],
            template,
            pathParams: params.filter((p) => p.in === 'path').map((p) => ({ name: p.name, schema: p.schema })),
            queryParams: params.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema })),
            form: !!requestBody?.content?.['application/x-www-form-urlencoded'],
            body: requestBody?.content?.['application/json']?.schema ? resolve(requestBody.content['application/json'].schema) : undefined,
          };
        }),
    );
    // Routes the document leaves out (or names otherwise) join too, with only the generic cases.
    const documented = new Set(routes.map((r) => `${r.method} ${r.template}`));
    for (const { method, url } of listRoutes(suite.app)) {
      const template = url.replace(/:(\w+)/g, '{$1}');
      if (documented.has(`${method} ${template}`) || !['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(method)) continue;
      const pathParams = [...template.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], schema: {} }));
      const body = ['POST', 'PUT', 'PATCH'].includes(method) ? { type: 'object' } : undefined;
      const route: Route = { method: method as Route['method'], template, pathParams, queryParams: [], body };
      routes.push(route);
      undocumented.add(route);
    }

    // One record of every other collection, created from its documented example where that is valid.
    for (const route of routes.filter((r) => r.method === 'POST' && !r.pathParams.length && r.body)) {
      const collection = route.template.split('/').pop()!;
      if (knownIds[collection]) continue;
      const res = await call<{ id?: unknown; jobId?: unknown } | undefined>(suite.app, 'POST', route.template, {
        key: suite.tenant.testKey,
        body: sample(route.body!),
      });
      const id: unknown = res.body?.id ?? res.body?.jobId;
      if (res.status < 300 && typeof id === 'string') knownIds[collection] = id;
    }

    // The schema's own snake_case names (tables, columns) must never reach a client.
    const names: { name: string }[] = await dataSource(suite.app).query(
      `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'
       UNION SELECT column_name FROM information_schema.columns WHERE table_schema = 'public'`,
    );
    const internal = names.map((n) => n.name).filter((n) => n.includes('_'));
    schemaNames = new RegExp(`\\b(${internal.join('|')})\\b`);
  });

  function resolve(schema: SchemaObject | ReferenceObject): SchemaObject {
    if ('$ref' in schema) return resolve(doc.components!.schemas![schema.$ref.split('/').pop()!]);
    if (schema.allOf?.length === 1) return { ...resolve(schema.allOf[0]), ...schema, allOf: undefined };
    return schema;
  }

  /** A plausible value for a schema: its example, else the first enum value, else one of its type. */
  function sample(raw: SchemaObject | ReferenceObject, depth = 0): unknown {
    const schema = resolve(raw);
    if (schema.example !== undefined) return schema.example;
    if (schema.enum) return schema.enum[0];
    if (schema.type === 'array') return depth > 3 ? [] : [sample(schema.items ?? {}, depth + 1)];
    if (schema.type === 'object' || schema.properties) {
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => [k, sample(v, depth + 1)]));
    }
    if (schema.type === 'number' || schema.type === 'integer') return schema.minimum ?? 1;
    if (schema.type === 'boolean') return false;
    const formats: Record<string, string> = {
      email: 'a@example.com',
      date: '2000-01-01',
      'date-time': '2026-01-01T00:00:00.000Z',
      uuid: PLACEHOLDER_ID,
    };
    return formats[String(schema.format)] ?? 'x';
  }

  function pathOf(route: Route, hostile: Record<string, string> = {}): string {
    let path = route.template;
    for (const { name, schema } of route.pathParams) {
      const segments = route.template.split('/');
      const collection = segments[segments.findIndex((segment) => segment.includes(`{${name}}`)) - 1];
      const value = hostile[name] ?? knownIds[collection] ?? (schema.enum ? String(schema.enum[0]) : PLACEHOLDER_ID);
      path = path.replace(`{${name}}`, value);
    }
    return path;
  }

  const failures: string[] = [];
  async function send(route: Route, label: string, options: Partial<InjectOptions> & { url: string }): Promise<LightMyRequestResponse> {
    const res = await suite.app.inject({
      method: route.method,
      ...options,
      headers: { authorization: `Bearer ${suite.tenant.testKey}`, ...(options.headers ?? {}) },
    });
    const where = `${route.method} ${route.template} [${label}]`;
    if (res.statusCode >= 500) failures.push(`${where}: ${res.statusCode} ${res.body.slice(0, 200)}`);
    if (res.statusCode >= 400) {
      if (!/^application\/problem\+json/.test(String(res.headers['content-type']))) failures.push(`${where}: not problem+json`);
      if (!res.headers['x-request-id']) failures.push(`${where}: no X-Request-Id`);
      const leak = INTERNALS.exec(res.body) ?? schemaNames.exec(res.body);
      if (leak) failures.push(`${where}: leaks "${leak[0]}" in ${res.body.slice(0, 200)}`);
      const code: unknown = (JSON.parse(res.body) as { code?: unknown }).code;
      if (!isErrorCode(code)) failures.push(`${where}: code ${String(code)} is not in ERROR_CODES`);
      else if (ERROR_CODES[code].status !== res.statusCode) failures.push(`${where}: ${res.statusCode} answered with ${code}`);
    }
    return res;
  }
  const expectStatus = (res: LightMyRequestResponse, route: Route, label: string, status: number): void => {
    if (res.statusCode !== status) failures.push(`${route.method} ${route.template} [${label}]: ${res.statusCode}, expected ${status}`);
  };
  const report = (): void => {
    const found = failures.splice(0);
    expect(found).toEqual([]);
  };
  const withBody = (): Route[] => routes.filter((r) => r.body);

  it(`covers every route the suite.app serves (at least the ${ROUTES_TODAY} of today)`, () => {
    expect(routes.length).toBeGreaterThanOrEqual(ROUTES_TODAY);
    for (const { method, url } of listRoutes(suite.app)) {
      expect(routes.map((r) => `${r.method} ${r.template}`)).toContain(`${method} ${url.replace(/:(\w+)/g, '{$1}')}`);
    }
    expect(withBody().length).toBeGreaterThanOrEqual(12);
    expect(routes.filter((r) => r.pathParams.length).length).toBeGreaterThanOrEqual(15);
  });

  it("documents the one list of error codes as the Problem schema's code enum", () => {
    expect(resolve(inline(doc.components?.schemas?.ProblemDto)!.properties!.code).enum).toEqual(ERROR_CODE_NAMES);
  });

  it(
    'bodies the parser must refuse: NUL, lone surrogates, bytes not UTF-8, 1e400, deep nesting, prototype keys, bad syntax',
    async () => {
      let deep = '1';
      for (let i = 0; i < 5_000; i++) deep = `[${deep}]`;
      const cases: [string, string | Buffer, number][] = [
        ['NUL in a value', `{"name":"a${'\\u0000'}"}`, 400],
        ['NUL in a key', `{"a${'\\u0000'}":1}`, 400],
        ['lone surrogate', '{"name":"\\ud800"}', 400],
        ['lone surrogate key', '{"\\udfff":1}', 400],
        ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), 400],
        ['CESU surrogate bytes', Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]), 400],
        ['1e400', '{"n":1e400}', 400],
        ['-1e400 in an array', '{"n":[1,-1e400]}', 400],
        ['deep nesting', deep, 400],
        ['__proto__', '{"__proto__":{"polluted":true}}', 400],
        ['constructor.prototype', '{"constructor":{"prototype":{"polluted":true}}}', 400],
        ['syntax error', '{"a":', 400],
      ];
      for (const route of withBody()) {
        for (const [label, payload, status] of cases) {
          expectStatus(
            await send(route, label, { url: pathOf(route), payload, headers: { 'content-type': 'application/json' } }),
            route,
            label,
            status,
          );
        }
      }
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      report();
    },
    TABLE_TIMEOUT,
  );

  it(
    'a body that is no JSON object (null, none, an array, a scalar) is 400 on every route that takes one, and any body but {} on one that takes none',
    async () => {
      // Public form routes (one-click unsubscribe) read nothing from a body and refuse none.
      for (const route of routes.filter((r) => ['POST', 'PUT', 'PATCH'].includes(r.method) && !r.template.includes('/public/'))) {
        const takesBody = !!route.body && !undocumented.has(route) && route.body.maxProperties !== 0;
        const json = { 'content-type': 'application/json' };
        for (const [label, payload] of [
          ['null', 'null'],
          ['[]', '[]'],
          ['"x"', '"x"'],
          ['1', '1'],
        ] as const) {
          expectStatus(await send(route, label, { url: pathOf(route), payload, headers: json }), route, label, 400);
        }
        if (takesBody) {
          expectStatus(await send(route, 'no body', { url: pathOf(route) }), route, 'no body', 400);
        } else {
          expectStatus(await send(route, '{"zz":1}', { url: pathOf(route), payload: '{"zz":1}', headers: json }), route, '{"zz":1}', 400);
        }
      }
      report();
    },
    TABLE_TIMEOUT,
  );

  it(
    'wrong content types and charsets: 415',
    async () => {
      const types = [
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/xml',
        'application/json; charset=latin1',
        'application/json; charset=utf-16',
      ];
      // HTML forms post to these (the manage page's reschedule buttons, `datetime` in the query string): a form
      // body is accepted and, without that query, refused as a 400 naming datetime.
      const FORM_POSTS = new Set(['POST /api/v1/public/appointments/{token}/reschedule']);
      for (const route of withBody()) {
        for (const type of types) {
          if (FORM_POSTS.has(`${route.method} ${route.template}`) && /form/.test(type)) continue;
          expectStatus(
            await send(route, type, { url: pathOf(route), payload: '{"a":1}', headers: { 'content-type': type } }),
            route,
            type,
            415,
          );
        }
        await send(route, 'no content type', { url: pathOf(route), payload: '{"a":1}' });
      }
      report();
    },
    TABLE_TIMEOUT,
  );

  it(
    'odd but valid JSON: duplicate keys, other top-level types, huge and tiny numbers, an over-long body',
    async () => {
      const payloads = [
        '{"a":1,"a":2}',
        '[]',
        '[{}]',
        '"text"',
        '42',
        'null',
        'true',
        '{"n":1e308,"m":-0,"t":5e-324}',
        `{"s":"${'x'.repeat(2 * 1024 * 1024)}"}`,
      ];
      for (const route of withBody()) {
        for (const payload of payloads) {
          await send(route, payload.slice(0, 20), { url: pathOf(route), payload, headers: { 'content-type': 'application/json' } });
        }
      }
      report();
    },
    TABLE_TIMEOUT,
  );

  it(
    'every documented body field set to hostile values (long strings, huge numbers, wrong types, traversal, injection)',
    async () => {
      for (const route of withBody()) {
        const base = sample(route.body!) as Record<string, unknown>;
        if (!base || typeof base !== 'object' || Array.isArray(base)) continue;
        const variants: [string, unknown][] = [['sample', base]];
        for (const key of Object.keys(base)) {
          for (const value of HOSTILE_VALUES) variants.push([`${key}=${JSON.stringify(value)?.slice(0, 20)}`, { ...base, [key]: value }]);
          // One level into arrays of objects (a bulk import's rows)
          const items = base[key];
          if (Array.isArray(items) && items[0] && typeof items[0] === 'object') {
            for (const inner of Object.keys(items[0] as object)) {
              for (const value of HOSTILE_VALUES) {
                variants.push([
                  `${key}.0.${inner}=${JSON.stringify(value)?.slice(0, 20)}`,
                  { ...base, [key]: [{ ...(items[0] as object), [inner]: value }] },
                ]);
              }
            }
          }
        }
        variants.push(['extra prototype-named fields', { ...base, toString: 'x', valueOf: 1, hasOwnProperty: null }]);
        for (const [label, body] of variants) {
          await send(route, label, { url: pathOf(route), payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
        }
      }
      report();
    },
    TABLE_TIMEOUT,
  );

  it(
    'the practice settings refuse smsFromNumber (operators assign it) whatever its value, naming it',
    async () => {
      const practice = routes.filter((r) => r.method === 'POST' && r.template === '/api/v1/settings/practice');
      expect(practice).toHaveLength(1);
      for (const route of practice) {
        for (const value of [...HOSTILE_VALUES, '+15005550006', '+442079460000']) {
          const label = `smsFromNumber=${JSON.stringify(value)?.slice(0, 20)}`;
          const payload = JSON.stringify({ name: 'Takeover', smsFromNumber: value });
          const res = await send(route, label, { url: pathOf(route), payload, headers: { 'content-type': 'application/json' } });
          expectStatus(res, route, label, 400);
          const fields = (JSON.parse(res.body) as { errors?: { field: string }[] }).errors?.map((e) => e.field);
          if (JSON.stringify(fields) !== '["smsFromNumber"]')
            failures.push(`${route.template} [${label}]: errors name ${JSON.stringify(fields)}`);
        }
      }
      report();
    },
    TABLE_TIMEOUT,
  );

  it(
    'the practice settings take smsCountries only as 1 to 50 upper-case ISO country codes (null deletes it), naming it',
    async () => {
      const practice = routes.filter((r) => r.method === 'POST' && r.template === '/api/v1/settings/practice');
      expect(practice).toHaveLength(1);
      for (const route of practice) {
        const hostile = [...HOSTILE_VALUES.filter((v) => v !== null), ['us'], ['XX'], ['UK'], ['GBR'], ['US', ''], Array(51).fill('US')];
        for (const value of hostile) {
          const label = `smsCountries=${JSON.stringify(value)?.slice(0, 20)}`;
          const payload = JSON.stringify({ name: 'Acme', smsCountries: value });
          const res = await send(route, label, { url: pathOf(route), payload, headers: { 'content-type': 'application/json' } });
          expectStatus(res, route, label, 400);
          const fields = (JSON.parse(res.body) as { errors?: { field: string }[] }).errors?.map((e) => e.field);
          if (JSON.stringify(fields) !== '["smsCountries"]')
            failures.push(`${route.template} [${label}]: errors name ${JSON.stringify(fields)}`);
        }
        const deleted = await send(route, 'smsCountries=null', {
          url: pathOf(route),
          payload: JSON.stringify({ smsCountries: null }),
          headers: { 'content-type': 'application/json' },
        });
        expectStatus(deleted, route, 'smsCountries=null', 200);
      }
      report();
    },
    TABLE_TIMEOUT,
  );

  it(
    'query strings: NUL and undecodable values are 400 everywhere; prototype keys answer as any unknown key',
    async () => {
      for (const route of routes) {
        const url = pathOf(route);
        for (const q of ['x=%00', 'x=a%00b', '%00=1', 'x=%ED%A0%80', 'x=%E0%A4%A', 'x=%C0%AF']) {
          const res = await send(route, q, { url: `${url}?${q}` });
          expectStatus(res, route, q, 400);
          // Refused before the route's own hooks run, yet never cached (a patient route's answers are no-store).
          if (res.headers['cache-control'] !== 'no-store')
            failures.push(`${route.method} ${route.template} [${q}]: no Cache-Control: no-store`);
        }
        const unknown = await send(route, 'unknown key', { url: `${url}?no_such_key=1` });
        for (const key of ['__proto__', 'constructor', 'toString', 'valueOf', '__defineGetter__']) {
          expectStatus(await send(route, key, { url: `${url}?${key}=1` }), route, key, unknown.statusCode);
        }
        for (const q of ['a=1&a=2&a=3', 'a[]=1', 'a[b]=1', '&&&', '=', 'a==1', 'x'.repeat(10_000)]) {
          await send(route, q.slice(0, 20), { url: `${url}?${q}` });
        }
      }
      report();
    },
    TABLE_TIMEOUT,
  );

  it(
    'every documented query parameter set to hostile values and repeated',
    async () => {
      for (const route of routes) {
        for (const { name } of route.queryParams) {
          for (const value of HOSTILE_QUERY_VALUES) {
            await send(route, `${name}=${value.slice(0, 20)}`, { url: `${pathOf(route)}?${name}=${value}` });
          }
          await send(route, `${name} repeated`, { url: `${pathOf(route)}?${name}=1&${name}=2` });
          // Integers are plain decimal digits: no hex, exponent, sign, padding or leading zero.
          if (['integer', 'number'].includes(route.queryParams.find((p) => p.name === name)!.schema.type as string)) {
            for (const value of ['0x10', '1e1', '%2B10', '%2010', '010', '10.0']) {
              expectStatus(
                await send(route, `${name}=${value}`, { url: `${pathOf(route)}?${name}=${value}` }),
                route,
                `${name}=${value}`,
                400,
              );
            }
          }
          expectStatus(await send(route, `${name}=NUL`, { url: `${pathOf(route)}?${name}=a%00` }), route, `${name}=NUL`, 400);
        }
      }
      report();
    },
    TABLE_TIMEOUT,
  );

  it(
    'hostile ids in every path parameter (traversal, over-long, undecodable, injection)',
    async () => {
      for (const route of routes) {
        for (const { name } of route.pathParams) {
          for (const id of HOSTILE_IDS) {
            const res = await send(route, `${name}=${id.slice(0, 20)}`, { url: pathOf(route, { [name]: id }) });
            if (res.statusCode < 400) failures.push(`${route.method} ${route.template} [${name}=${id.slice(0, 20)}]: ${res.statusCode}`);
          }
        }
      }
      report();
    },
    TABLE_TIMEOUT,
  );

  it(
    'form bodies (provider callbacks): bad escapes, NUL, lone surrogates, bytes not UTF-8, prototype keys, oversize, other types',
    async () => {
      const formRoutes = routes.filter((r) => r.form);
      expect(formRoutes.map((r) => r.template)).toEqual(
        expect.arrayContaining(['/api/v1/public/sms/twilio/status', '/api/v1/public/sms/twilio/inbound']),
      );
      const form = 'application/x-www-form-urlencoded';
      const cases: [string, string | Buffer, string, number][] = [
        ['NUL in a value', 'Body=a%00b&From=%2B12025550100', form, 400],
        ['NUL in a key', 'B%00ody=STOP', form, 400],
        ['cut-off escape', 'Body=%E0%A4%A', form, 400],
        ['escape of no character', 'Body=%ZZ', form, 400],
        ['lone surrogate', 'Body=%ED%A0%80', form, 400],
        ['bytes not UTF-8', Buffer.from([0x42, 0x6f, 0x64, 0x79, 0x3d, 0xff, 0xfe]), form, 400],
        ['__proto__ key', '__proto__=x&Body=STOP', form, 400],
        ['over 8 KiB', `Body=${'x'.repeat(9_000)}`, form, 413],
        ['latin1 charset', 'Body=STOP', `${form}; charset=latin1`, 415],
        ['multipart', '--x--', 'multipart/form-data; boundary=x', 415],
        ['text', 'Body=STOP', 'text/plain', 415],
        // Well-formed, but not signed by the provider.
        ['unsigned form', 'Body=STOP&From=%2B12025550100&To=%2B15005550006', form, 403],
        ['unsigned empty form', '', form, 403],
        ['unsigned JSON', '{"Body":"STOP"}', 'application/json', 403],
        ['forged signature', 'Body=STOP', form, 403],
      ];
      for (const route of formRoutes) {
        for (const [label, payload, type, status] of cases) {
          const headers: Record<string, string> = { 'content-type': type };
          if (label === 'forged signature') headers['x-twilio-signature'] = 'x'.repeat(5_000);
          expectStatus(await send(route, label, { url: pathOf(route), payload, headers }), route, label, status);
        }
      }
      report();
    },
    TABLE_TIMEOUT,
  );

  it(
    'headers: two Authorization headers are 400 everywhere; odd keys, If-Match and Idempotency-Key are no 5xx',
    async () => {
      for (const route of routes) {
        const url = pathOf(route);
        const two = await send(route, 'two Authorization', {
          url,
          headers: { authorization: [`Bearer ${suite.tenant.testKey}`, 'Bearer sk_test_other'] as unknown as string },
        });
        expectStatus(two, route, 'two Authorization', 400);
        for (const authorization of [
          `Bearer ${'x'.repeat(10_000)}`,
          'Basic YTpi',
          'Bearer',
          'Bearer sk_live_',
          `Bearer ${suite.tenant.testKey} extra`,
        ]) {
          await send(route, `authorization ${authorization.slice(0, 15)}`, { url, headers: { authorization } });
        }
        for (const ifMatch of ['"x.99999999999999999999"', 'W/"abcdefgh.999999999999999"', '*', '"', ',,,', 'x'.repeat(5_000)]) {
          await send(route, `If-Match ${ifMatch.slice(0, 15)}`, { url, headers: { 'if-match': ifMatch } });
        }
        for (const key of ['x'.repeat(300), ' ', 'ü', 'k'.repeat(255)]) {
          await send(route, `Idempotency-Key ${key.slice(0, 10)}`, { url, headers: { 'idempotency-key': key } });
        }
        const requestId = await send(route, 'X-Request-Id', { url, headers: { 'x-request-id': '<script>alert(1)</script>' } });
        if (String(requestId.headers['x-request-id']).includes('<'))
          failures.push(`${route.method} ${route.template}: echoed an insane X-Request-Id`);
      }
      report();
    },
    TABLE_TIMEOUT,
  );
});
