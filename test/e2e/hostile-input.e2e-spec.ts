import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { connect } from 'node:net';
import { call, client, createTenant, dataSource, type Json, startApp, TestTenant, TestResponse } from '../helpers/app';
import { createPatient, NO_RATE_LIMITS, PATIENTS } from '../helpers/patients';

/** A problem+json answer with X-Request-Id and the security headers: the way every error leaves. */
function expectProblem(res: TestResponse, status: number, code: string, field?: string): void {
  expect([res.status, res.body?.code, res.text.slice(0, 300)]).toEqual([status, code, expect.any(String)]);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.headers['x-request-id']).toEqual(res.body.requestId);
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  if (field !== undefined) expect(res.body.errors).toEqual([expect.objectContaining({ field })]);
}

const json = (key: string, rawBody: string, contentType = 'application/json') => ({
  key,
  rawBody,
  headers: { 'content-type': contentType },
});

describe('Hostile input: a 4xx problem, never a 500, never silently changed', () => {
  let app: NestFastifyApplication;
  let tenant: TestTenant;
  let api: ReturnType<typeof client>;
  let patient: { id: string };

  beforeAll(async () => {
    app = await startApp(NO_RATE_LIMITS);
    tenant = await createTenant(app);
    api = client(app, tenant.testKey);
    patient = await createPatient(app, tenant.testKey);
    expect((await api.post(`${PATIENTS}/custom-fields`, { key: 'insurer', label: 'Insurer', type: 'text' })).status).toBe(201);
  });
  afterAll(() => app.close());

  const patientCount = async (): Promise<number> =>
    Number((await dataSource(app).query('SELECT count(*) AS n FROM patients WHERE tenant_id = $1', [tenant.id]))[0].n);

  describe('NUL (\\u0000) in any string, key or query value: 400 naming the field', () => {
    const NUL = '\u0000';
    it.each([
      ['POST /patients, a text field', 'POST', PATIENTS, { firstName: `A${NUL}`, lastName: 'B' }, 'firstName'],
      ['POST /patients, address', 'POST', PATIENTS, { firstName: 'A', lastName: 'B', address: `x${NUL}` }, 'address'],
      ['POST /patients, a tag', 'POST', PATIENTS, { firstName: 'A', lastName: 'B', tags: ['ok', `t${NUL}`] }, 'tags.1'],
      [
        'POST /patients, a custom field value',
        'POST',
        PATIENTS,
        { firstName: 'A', lastName: 'B', customFields: { insurer: NUL } },
        'customFields.insurer',
      ],
      [
        'POST /patients, a custom field key',
        'POST',
        PATIENTS,
        { firstName: 'A', lastName: 'B', customFields: { [`k${NUL}`]: 1 } },
        'customFields.k\\u0000',
      ],
      ['settings, a key', 'POST', '/api/v1/settings/practice', { [`name${NUL}`]: 'x' }, 'name\\u0000'],
      ['settings, a nested value', 'POST', '/api/v1/settings/brand', { colours: { main: `#fff${NUL}` } }, 'colours.main'],
      ['a key name', 'POST', '/api/v1/settings/portal-access-keys', { name: `key${NUL}` }, 'name'],
      ['a custom field label', 'POST', `${PATIENTS}/custom-fields`, { key: 'k2', label: `L${NUL}`, type: 'text' }, 'label'],
      [
        'custom field options',
        'POST',
        `${PATIENTS}/custom-fields`,
        { key: 'k3', label: 'L', type: 'select', options: ['a', NUL] },
        'options.1',
      ],
      [
        'bulk import, a row',
        'POST',
        `${PATIENTS}/bulk-import`,
        {
          patients: [
            { firstName: 'A', lastName: 'B' },
            { firstName: NUL, lastName: 'B' },
          ],
        },
        'patients.1.firstName',
      ],
      [
        'bulk import, a dry run',
        'POST',
        `${PATIENTS}/bulk-import?dryRun=true`,
        { patients: [{ firstName: 'A', lastName: `B${NUL}` }] },
        'patients.0.lastName',
      ],
    ])('%s', async (_label, method, url, body, field) => {
      const before = await patientCount();
      expectProblem(await call(app, method as 'POST', url, { key: tenant.testKey, body }), 400, 'validation_failed', field);
      expect(await patientCount()).toBe(before);
    });

    it('PUT /patients/{id} and a clinical item', async () => {
      expectProblem(await api.put(`${PATIENTS}/${patient.id}`, { gender: `f${NUL}` }), 400, 'validation_failed', 'gender');
      expectProblem(
        await api.post(`${PATIENTS}/${patient.id}/clinical/conditions`, { display: `Asthma${NUL}` }),
        400,
        'validation_failed',
        'display',
      );
    });

    it.each(['search', 'email', 'externalId', 'gender', 'tags', 'cursor'])('the list filter %s', async (name) => {
      expectProblem(await api.get(`${PATIENTS}?${name}=a%00b`), 400, 'validation_failed', name);
    });
  });

  describe('lone surrogates and bytes that are not UTF-8', () => {
    it('refuses an unpaired surrogate in a string or a key, the email field included (was a URIError 500)', async () => {
      const before = await patientCount();
      const post = (raw: string): Promise<TestResponse> => call(app, 'POST', PATIENTS, json(tenant.testKey, raw));
      expectProblem(await post('{"firstName":"\\ud800","lastName":"B"}'), 400, 'validation_failed', 'firstName');
      expectProblem(await post('{"firstName":"A","lastName":"B","email":"a\\ud800@example.com"}'), 400, 'validation_failed', 'email');
      expectProblem(
        await post('{"firstName":"A","lastName":"B","customFields":{"\\udc00":1}}'),
        400,
        'validation_failed',
        'customFields.\\udc00',
      );
      const settings = await call(app, 'POST', '/api/v1/settings/portal', json(tenant.testKey, '{"title":"x\\udbff"}'));
      expectProblem(settings, 400, 'validation_failed', 'title');
      const bulk = await call(
        app,
        'POST',
        `${PATIENTS}/bulk-import`,
        json(tenant.testKey, '{"patients":[{"firstName":"\\ud800x","lastName":"B"}]}'),
      );
      expectProblem(bulk, 400, 'validation_failed', 'patients.0.firstName');
      expect(await patientCount()).toBe(before);
    });

    it('keeps a well-formed pair (an emoji) as it was sent', async () => {
      const res = await call(app, 'POST', PATIENTS, json(tenant.testKey, '{"firstName":"\\ud83d\\ude00","lastName":"B"}'));
      expect([res.status, res.body.firstName]).toEqual([201, '😀']);
    });

    it('refuses a query value whose percent-encoding is not UTF-8 (a lone surrogate, a cut sequence)', async () => {
      expectProblem(await api.get(`${PATIENTS}?search=%ED%A0%80`), 400, 'validation_failed', 'search');
      expectProblem(await api.get(`${PATIENTS}?search=%E0%A4%A`), 400, 'validation_failed', 'search');
    });

    it('refuses a body that is not UTF-8 (400 invalid_json) instead of storing U+FFFD', async () => {
      const res = await app.inject({
        method: 'POST',
        url: PATIENTS,
        headers: { authorization: `Bearer ${tenant.testKey}`, 'content-type': 'application/json' },
        payload: Buffer.concat([Buffer.from('{"firstName":"Ren'), Buffer.from([0xe9]), Buffer.from('e","lastName":"B"}')]),
      });
      const body = JSON.parse(res.body);
      expect([res.statusCode, body.code, body.detail]).toEqual([400, 'invalid_json', 'The request body is not valid UTF-8']);
    });

    it('refuses any charset but UTF-8 (415), and takes utf-8 however it is spelled', async () => {
      const latin1 = await call(
        app,
        'POST',
        '/api/v1/settings/practice',
        json(tenant.testKey, '{"name":"Ren\u00e9e"}', 'application/json; charset=latin1'),
      );
      expectProblem(latin1, 415, 'unsupported_media_type');
      for (const type of ['application/json; charset=utf-8', 'application/json;charset="UTF-8"', 'application/json; charset=utf8']) {
        expect((await call(app, 'POST', '/api/v1/settings/practice', json(tenant.testKey, '{"name":"Renée"}', type))).status).toBe(200);
      }
      expect((await api.get('/api/v1/settings/practice')).body.settings.name).toBe('Renée');
    });
  });

  describe('values PostgreSQL refuses (SQLSTATE class 22): 400, and If-Match out of range: 412', () => {
    const cursor = (value: unknown, id: unknown): string => Buffer.from(JSON.stringify([value, id])).toString('base64url');

    it.each([
      ['a value that is not a date', cursor('not-a-date', '0190c1c5-0000-7000-8000-000000000001')],
      ['the year 300000', cursor('+300000-01-01T00:00:00.000Z', '0190c1c5-0000-7000-8000-000000000001')],
      ['an id that is not a uuid', cursor('2026-01-01T00:00:00.000Z', 'x')],
    ])('a cursor with %s', async (_label, value) => {
      expectProblem(await api.get(`${PATIENTS}?cursor=${value}`), 400, 'validation_failed', 'cursor');
      expectProblem(await api.get(`/api/v1/settings/portal-access-keys?cursor=${value}`), 400, 'validation_failed', 'cursor');
    });

    it('a date PostgreSQL cannot hold in a filter (year 0) is a 400, through the one filter', async () => {
      expectProblem(await api.get(`${PATIENTS}?updatedSince=0000-01-01T00:00:00Z`), 400, 'validation_failed');
      expectProblem(
        await api.get(`${PATIENTS}?cursor=${cursor('0000-01-01T00:00:00.000Z', '0190c1c5-0000-7000-8000-000000000001')}`),
        400,
        'validation_failed',
      );
    });

    it('an If-Match version beyond the integer range is 412, not 500', async () => {
      const current = await api.get(`${PATIENTS}/${patient.id}`);
      const tag = String(current.headers.etag).replace(/\.\d+"$/, '.999999999999999"');
      expectProblem(await api.put(`${PATIENTS}/${patient.id}`, { gender: 'x' }, { 'if-match': tag }), 412, 'precondition_failed');
      expect((await api.put(`${PATIENTS}/${patient.id}`, { gender: 'x' }, { 'if-match': String(current.headers.etag) })).status).toBe(200);
    });
  });

  it('numbers that are not finite are 400, never stored as null (the delete marker)', async () => {
    expect((await api.post('/api/v1/settings/practice', { capacity: 12 })).status).toBe(200);
    for (const raw of ['{"capacity":1e400}', '{"capacity":-1e400}', '{"nested":{"n":[1,2e999]}}']) {
      expectProblem(await call(app, 'POST', '/api/v1/settings/practice', json(tenant.testKey, raw)), 400, 'validation_failed');
    }
    expect((await api.get('/api/v1/settings/practice')).body.settings.capacity).toBe(12);
    const patientBody = '{"firstName":"A","lastName":"B","customFields":{"insurer":1e400}}';
    expectProblem(await call(app, 'POST', PATIENTS, json(tenant.testKey, patientBody)), 400, 'validation_failed', 'customFields.insurer');
  });

  describe("Fastify's own errors go through the one filter", () => {
    it('a path that does not decode, and a path parameter over 256 characters: 404 problem+json', async () => {
      expectProblem(await api.get(`${PATIENTS}/%E0%A4%A`), 404, 'not_found');
      expectProblem(await api.get(`${PATIENTS}/${'a'.repeat(300)}`), 404, 'not_found');
      expectProblem(await call(app, 'GET', `${PATIENTS}/%zz`), 404, 'not_found');
    });

    it('a body shorter than its Content-Length: 400 problem+json', async () => {
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/settings/practice',
        headers: { authorization: `Bearer ${tenant.testKey}`, 'content-type': 'application/json', 'content-length': '100' },
        payload: '{"a":1}',
      });
      expectProblem({ status: res.statusCode, headers: res.headers, body: JSON.parse(res.body), text: res.body }, 400, 'bad_request');
    });

    describe('over a real socket', () => {
      let port: number;
      beforeAll(async () => {
        await app.listen({ port: 0, host: '127.0.0.1' });
        port = (app.getHttpServer().address() as { port: number }).port;
      });

      const send = (text: string, end = false): Promise<{ status: number; headers: Record<string, string>; body: Json }> =>
        new Promise((resolve, reject) => {
          const socket = connect(port, '127.0.0.1', () => {
            socket.write(text);
            if (end) socket.end();
          });
          let out = '';
          socket.on('data', (d: Buffer) => (out += d.toString('utf8')));
          socket.on('error', reject);
          socket.on('close', () => {
            const [head, ...rest] = out.split('\r\n\r\n');
            const [statusLine, ...lines] = head.split('\r\n');
            const headers = Object.fromEntries(
              lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
            );
            resolve({ status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(rest.join('\r\n')) });
          });
        });

      const expectSocketProblem = (
        res: { status: number; headers: Record<string, string>; body: Json },
        status: number,
        code: string,
      ): void => {
        expect([res.status, res.body.code]).toEqual([status, code]);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(res.headers['x-request-id']).toBe(res.body.requestId);
        expect(res.headers['x-content-type-options']).toBe('nosniff');
        expect(res.headers['content-security-policy']).toContain("default-src 'self'");
      };

      it('a bad chunked body', async () => {
        const auth = `Authorization: Bearer ${tenant.testKey}\r\n`;
        const chunked = `POST /api/v1/settings/practice HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n{"a":1}\r\n0\r\n\r\n`;
        expectSocketProblem(await send(chunked), 400, 'bad_request');
      });

      it('a body cut short of its Content-Length', async () => {
        const auth = `Authorization: Bearer ${tenant.testKey}\r\n`;
        const short = `POST /api/v1/settings/practice HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":1}`;
        expectSocketProblem(await send(short, true), 400, 'bad_request');
      });

      it('a request line that is not HTTP, and a bad URL', async () => {
        expectSocketProblem(await send('GARBAGE\r\n\r\n'), 400, 'bad_request');
        expectSocketProblem(await send(`GET ${PATIENTS}/%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`), 404, 'not_found');
      });

      it('two Authorization headers: 400, not whichever came first', async () => {
        const two = `GET /api/v1/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${tenant.testKey}\r\nAuthorization: Bearer sk_test_other\r\nConnection: close\r\n\r\n`;
        const res = await send(two);
        expectSocketProblem(res, 400, 'bad_request');
        expect(res.body.detail).toMatch(/one Authorization header/);
        const one = await send(
          `GET /api/v1/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${tenant.testKey}\r\nConnection: close\r\n\r\n`,
        );
        expect(one.status).toBe(200);
      });
    });
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])(
    'the query key %s is the same 400 as any unknown key',
    async (key) => {
      const unknown = await api.get(`${PATIENTS}?nonsense=1`);
      expectProblem(unknown, 400, 'validation_failed', 'nonsense');
      const res = await api.get(`${PATIENTS}?${key}=1`);
      expectProblem(res, 400, 'validation_failed', key);
      expect(res.body.errors[0].message).toBe(unknown.body.errors[0].message);
      expectProblem(await api.get(`/api/v1/settings/portal-access-keys?${key}=1`), 400, 'validation_failed', key);
    },
  );

  it('a missing required field reads "is required": one message per field', async () => {
    const res = await api.post(PATIENTS, { lastName: 'B' });
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors).toEqual([{ field: 'firstName', message: 'is required' }]);
    const key = await api.post('/api/v1/settings/portal-access-keys', {});
    expect(key.body.errors).toEqual([{ field: 'name', message: 'is required' }]);
    const wrongType = await api.post(PATIENTS, { firstName: 42, lastName: '' });
    expect(wrongType.body.errors).toEqual([
      { field: 'firstName', message: 'must be a string' },
      { field: 'lastName', message: 'must not be blank' },
    ]);
  });
});
