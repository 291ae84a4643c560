import { INTERCEPTORS_METADATA } from '@nestjs/common/constants';
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import type { OpenAPIObject, OperationObject } from '@nestjs/swagger';
import { generateOpenApiDocument, OPENAPI_FILE, REGENERATE_COMMAND, serialise } from '../../src/export-openapi';
import { OPENAPI_TAGS } from '../../src/openapi';
import { ERROR_CODES, ErrorCode } from '../../src/common/http/errors/error-codes';
import { withExamplesFromNow } from '../../src/common/http/openapi/example-dates';
import { clock } from '../../src/common/time/clock';
import { IdempotencyInterceptor } from '../../src/common/idempotency/idempotency.interceptor';
import { call } from '../helpers/app';
import { useApp } from '../helpers/use-app';
import { listRoutes } from '../helpers/routes';
import { operationsOf, problemCodes } from '../helpers/openapi';

function operations(doc: OpenAPIObject): { where: string; path: string; method: string; op: OperationObject }[] {
  return operationsOf(doc).map((o) => ({ where: `${o.method.toUpperCase()} ${o.path}`, ...o }));
}

/**
 * The document as outside tools read it: generated clients name their functions after operationIds
 * and their base URL after `servers`; the committed openapi.json is what integrators download.
 */
describe('OpenAPI document', () => {
  let doc: OpenAPIObject;

  beforeAll(async () => {
    doc = await generateOpenApiDocument();
  });

  it(`matches the committed openapi.json (regenerate with \`${REGENERATE_COMMAND}\`)`, () => {
    // Compared as data: the swagger plugin under jest orders some schema keys unlike `nest build`.
    const committed: unknown = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8'));
    if (!isDeepStrictEqual(committed, JSON.parse(serialise(doc)))) {
      throw new Error(`openapi.json is stale: run \`${REGENERATE_COMMAND}\` and commit openapi.json`);
    }
  });

  it('gives every operation a unique, readable operationId (set it in the route’s @ApiOperation)', () => {
    const ids = operations(doc).map(({ where, op }) => [where, op.operationId] as const);
    expect(ids.length).toBeGreaterThan(20);
    for (const [where, id] of ids) expect([where, id]).toEqual([where, expect.stringMatching(/^[a-z][A-Za-z]+$/)]);
    const seen = new Set<string>();
    const duplicates = ids.filter(([, id]) => seen.size === seen.add(id!).size);
    expect(duplicates).toEqual([]);
    expect(ids.map(([, id]) => id)).toEqual(
      expect.arrayContaining(['listPatients', 'getPatient', 'createPatient', 'updatePatient', 'listPatientTags']),
    );
  });

  it('lists the settings paths literally, one named operation each, with a named body schema', () => {
    expect(Object.keys(doc.paths).filter((p) => p.includes('{section}'))).toEqual([]);
    for (const [section, name] of [
      ['portal', 'Portal'],
      ['practice', 'Practice'],
      ['brand', 'Brand'],
    ]) {
      const item = doc.paths[`/api/v1/settings/${section}`];
      expect(item.get?.operationId).toBe(`get${name}Settings`);
      expect(item.post?.operationId).toBe(`update${name}Settings`);
      expect(item.post?.requestBody).toMatchObject({
        content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}SettingsPatch` } } },
      });
      expect(doc.components?.schemas?.[`${name}SettingsPatch`]).toMatchObject({
        type: 'object',
        additionalProperties: { $ref: '#/components/schemas/JsonValue' },
      });
    }
  });

  it('states `security: []` on the routes that take no key, and bearer security on the others', () => {
    for (const { where, path, op } of operations(doc)) {
      // /api/v1/public/… (booking pages, unsubscribe) take no key, like the routes outside /api/v1.
      const expected = path.startsWith('/api/v1/') && !path.startsWith('/api/v1/public/') ? [{ apiKey: [] }] : [];
      expect([where, op.security]).toEqual([where, expected]);
    }
    expect(doc.paths['/health/ready'].get?.security).toEqual([]);
  });

  it('declares, with a description, every tag its operations use', () => {
    expect(doc.tags).toEqual(OPENAPI_TAGS);
    const declared = new Set(OPENAPI_TAGS.map((t) => t.name));
    for (const { where, op } of operations(doc)) {
      expect([where, op.tags?.length]).toEqual([where, 1]);
      expect([where, declared.has(op.tags![0])]).toEqual([where, true]);
    }
  });

  it('documents per operation the error codes it can answer, one problem response per status', () => {
    for (const { where, path, method, op } of operations(doc)) {
      if (!path.startsWith('/api/v1/')) continue;
      const codes = Object.entries(op.responses)
        .filter(([status]) => Number(status) >= 400)
        .flatMap(([status, response]) => {
          const enumCodes = problemCodes(response);
          for (const code of enumCodes)
            expect([where, code, ERROR_CODES[code as ErrorCode]?.status]).toEqual([where, code, Number(status)]);
          return enumCodes;
        });
      const idempotent = method === 'post' && (!!op.security?.length || path === '/api/v1/public/schedulers/{id}/book');
      expect([where, codes.includes('idempotency_key_in_use'), codes.includes('idempotency_key_reused')]).toEqual([
        where,
        idempotent,
        idempotent,
      ]);
      expect([where, codes.includes('not_found')]).toEqual([where, path.includes('{')]);
      expect([where, codes.includes('rate_limited')]).toEqual([where, true]);
    }
    const put = doc.paths['/api/v1/patients/{id}'].put!;
    expect(Object.keys(put.responses).sort()).toEqual(['200', '400', '401', '403', '404', '409', '412', '413', '415', '429', '503']);
    expect(problemCodes(put.responses['409'])).toEqual(['external_id_taken']);
  });

  it('names one server, `/`: whatever address the document was loaded from, which /api/v1 paths resolve against', () => {
    expect(doc.servers).toEqual([{ url: '/', description: expect.any(String) }]);
    // As Swagger UI joins them: the server resolved against the document's address, less its trailing slash, then the path.
    const base = new URL(doc.servers![0].url, 'http://localhost:3000/api/docs-json').href.replace(/\/$/, '');
    expect(`${base}/api/v1/patients`).toBe('http://localhost:3000/api/v1/patients');
  });

  describe('served at /api/docs-json', () => {
    const suite = useApp({ WORKERS: 'off', PUBLIC_URL: 'https://api.example.test/' });

    it('is the same document, with this deployment’s PUBLIC_URL as its second server and its example dates computed now', async () => {
      const before = clock.now();
      const served = (await call<OpenAPIObject>(suite.app, 'GET', '/api/docs-json')).body;
      const after = clock.now();
      expect(served.servers).toEqual([...doc.servers!, { url: 'https://api.example.test', description: expect.any(String) }]);
      // The examples change each Monday (UTC): the one of the request's moment, whichever side of it.
      expect(
        [withExamplesFromNow(doc, before), withExamplesFromNow(doc, after)].map((d) => JSON.parse(serialise(d)) as unknown),
      ).toContainEqual({
        ...served,
        servers: doc.servers,
      });
    });

    it('documents the Idempotency-Key header on exactly the routes its interceptor wraps', () => {
      const wrapped = listRoutes(suite.app)
        .filter(({ handler }) =>
          ((Reflect.getMetadata(INTERCEPTORS_METADATA, handler) as unknown[] | undefined) ?? []).some((i) => i === IdempotencyInterceptor),
        )
        .map(({ method, url }) => `${method.toLowerCase()} ${url.replace(/:(\w+)/g, '{$1}')}`);
      const documented = operations(doc)
        .filter(({ op }) => (op.parameters ?? []).some((p) => 'name' in p && p.name === 'Idempotency-Key'))
        .map(({ method, path }) => `${method} ${path}`);
      expect(wrapped.length).toBeGreaterThan(20);
      expect(documented.sort()).toEqual(wrapped.sort());
      // Of the public POSTs, only the booking page's keeps answers (per page); a manage link's do not.
      expect(wrapped).toContain('post /api/v1/public/schedulers/{id}/book');
      expect(wrapped.filter((route) => route.includes('/public/'))).toEqual(['post /api/v1/public/schedulers/{id}/book']);
    });
  });
});
