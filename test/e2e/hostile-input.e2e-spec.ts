import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { connect } from 'node:net';
import type { MeDto } from '../../src/modules/api-keys/dto/me.dto';
import type { EmailTemplateDto } from '../../src/modules/email/dto/email-template.dto';
import type { EncounterDto } from '../../src/modules/patients/dto/clinical.dto';
import type { PatientDto, PatientSummaryDto } from '../../src/modules/patients/dto/patient.dto';
import type { AppointmentDto, AppointmentListDto } from '../../src/modules/scheduling/appointments/dto/appointment.dto';
import type { ProviderDto } from '../../src/modules/scheduling/providers/dto/provider.dto';
import type { SettingsDto } from '../../src/modules/settings/dto/settings.dto';
import type { SmsTemplateDto } from '../../src/modules/sms/dto/sms-template.dto';
import type { WebhookWithSecretDto } from '../../src/modules/webhooks/dto/webhook.dto';
import { call, client, createKey, createTenant, dataSource, type Problem, startApp, TestTenant, TestResponse } from '../helpers/app';
import type { EventOf, EventPageOf } from '../helpers/events';
import { createPatient, NO_RATE_LIMITS, PATIENTS } from '../helpers/patients';
import { bookAppointment, createProvider, everyDay, SCHEDULING } from '../helpers/scheduling';
import { nextWeekday } from '../helpers/dates';
import { clock } from '../../src/common/time/clock';

/** A problem+json answer with X-Request-Id and the security headers: the way every error leaves. */
function expectProblem(res: TestResponse<unknown>, status: number, code: string, field?: string): void {
  const problem = res.body as Problem | undefined;
  expect([res.status, problem?.code, res.text.slice(0, 300)]).toEqual([status, code, expect.any(String)]);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.headers['x-request-id']).toEqual(problem!.requestId);
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  if (field !== undefined) expect(problem!.errors).toEqual([expect.objectContaining({ field })]);
}

/** An answer read off a raw socket. */
interface SocketResponse<T> {
  status: number;
  headers: Record<string, string>;
  body: T;
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
    Number((await dataSource(app).query<{ n: string }[]>('SELECT count(*) AS n FROM patients WHERE tenant_id = $1', [tenant.id]))[0].n);

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
      const post = (raw: string): Promise<TestResponse<unknown>> => call(app, 'POST', PATIENTS, json(tenant.testKey, raw));
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
      const res = await call<PatientDto>(app, 'POST', PATIENTS, json(tenant.testKey, '{"firstName":"\\ud83d\\ude00","lastName":"B"}'));
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
      const body = JSON.parse(res.body) as Problem;
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
      expect((await api.get<SettingsDto>('/api/v1/settings/practice')).body.settings.name).toBe('Renée');
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
    expect((await api.get<SettingsDto>('/api/v1/settings/practice')).body.settings.capacity).toBe(12);
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
      expectProblem(
        { status: res.statusCode, headers: res.headers, body: JSON.parse(res.body) as unknown, text: res.body },
        400,
        'bad_request',
      );
    });

    describe('over a real socket', () => {
      let port: number;
      beforeAll(async () => {
        await app.listen({ port: 0, host: '127.0.0.1' });
        port = (app.getHttpServer().address() as { port: number }).port;
      });

      /** Sends raw bytes and reads the one answer; its body as a problem unless the caller says otherwise. */
      const send = <T = Problem>(text: string, end = false): Promise<SocketResponse<T>> =>
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
            resolve({ status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(rest.join('\r\n')) as T });
          });
        });

      const expectSocketProblem = (res: SocketResponse<Problem>, status: number, code: string): void => {
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
        const one = await send<MeDto>(
          `GET /api/v1/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${tenant.testKey}\r\nConnection: close\r\n\r\n`,
        );
        expect(one.status).toBe(200);
      });
    });
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])(
    'the query key %s is the same 400 as any unknown key',
    async (key) => {
      const unknown = await api.get<Problem>(`${PATIENTS}?nonsense=1`);
      expectProblem(unknown, 400, 'validation_failed', 'nonsense');
      const res = await api.get<Problem>(`${PATIENTS}?${key}=1`);
      expectProblem(res, 400, 'validation_failed', key);
      expect(res.body.errors![0].message).toBe(unknown.body.errors![0].message);
      expectProblem(await api.get(`/api/v1/settings/portal-access-keys?${key}=1`), 400, 'validation_failed', key);
    },
  );

  it('a missing required field reads "is required": one message per field', async () => {
    const res = await api.post<Problem>(PATIENTS, { lastName: 'B' });
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors).toEqual([{ field: 'firstName', message: 'is required' }]);
    const key = await api.post<Problem>('/api/v1/settings/portal-access-keys', {});
    expect(key.body.errors).toEqual([{ field: 'name', message: 'is required' }]);
    const wrongType = await api.post<Problem>(PATIENTS, { firstName: 42, lastName: '' });
    expect(wrongType.body.errors).toEqual([
      { field: 'firstName', message: 'must be a string' },
      { field: 'lastName', message: 'must not be blank' },
    ]);
  });
});

/**
 * What an outside probe found: each case failed before its fix (a 500, a 200 or 201 on input that is not
 * the contract's, patient data beyond a key's scopes, a platform 400 without the route's no-store).
 */
describe("The probe's findings: input, scope and bodies", () => {
  let app: NestFastifyApplication;
  let tenant: TestTenant;
  let api: ReturnType<typeof client>;
  let patient: { id: string };
  const PROVIDERS = `${SCHEDULING}/providers`;

  beforeAll(async () => {
    app = await startApp({ ...NO_RATE_LIMITS, WORKERS: 'off', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    tenant = await createTenant(app);
    api = client(app, tenant.testKey);
    patient = await createPatient(app, tenant.testKey, {
      email: 'ada@example.com',
      phone: '+14155550101',
      dateOfBirth: '1990-04-01',
      address: '1 Secret Lane',
    });
  });
  afterAll(() => app.close());

  describe('workingHours of any malformed shape: 400 naming the member, never 500', () => {
    const base = { name: 'Dr. Shape', timezone: 'Europe/London' };
    it.each([
      ['an empty array', [[]], 'workingHours', 'item 0 must be an object'],
      ['a nested array', [[{ weekday: 1, start: '09:00', end: '17:00' }]], 'workingHours', 'item 0 must be an object'],
      ['null', [null], 'workingHours', 'item 0 must be an object'],
      ['a number', [1], 'workingHours', 'item 0 must be an object'],
      ['a string', ['09:00-17:00'], 'workingHours', 'item 0 must be an object'],
      ['an empty object', [{}], 'workingHours.0.weekday', 'is required'],
      ['a weekday as text', [{ weekday: '1', start: '09:00', end: '17:00' }], 'workingHours.0.weekday', 'must be an integer number'],
      ['a start as a number', [{ weekday: 1, start: 900, end: '17:00' }], 'workingHours.0.start', 'must be a string'],
      ['an end as an array', [{ weekday: 1, start: '09:00', end: ['17:00'] }], 'workingHours.0.end', 'must be a string'],
      ['a second bad item', [{ weekday: 1, start: '09:00', end: '17:00' }, []], 'workingHours', 'item 1 must be an object'],
      ['an object instead of an array', { weekday: 1, start: '09:00', end: '17:00' }, 'workingHours', 'must be an array'],
    ])('%s', async (_label, workingHours, field, message) => {
      const created = await api.post<Problem>(PROVIDERS, { ...base, workingHours });
      expectProblem(created, 400, 'validation_failed');
      expect(created.body.errors).toContainEqual({ field, message });
      const provider = await createProvider(app, tenant.testKey);
      const patched = await api.patch<Problem>(`${PROVIDERS}/${provider.id}`, { workingHours });
      expectProblem(patched, 400, 'validation_failed');
      expect(patched.body.errors).toContainEqual({ field, message });
      expect((await api.get<ProviderDto>(`${PROVIDERS}/${provider.id}`)).body.workingHours).toEqual(provider.workingHours);
    });
  });

  describe('previews for a patient need patients:read, however the template scope is held', () => {
    it.each([
      [
        'email',
        '/api/v1/emails/templates',
        { name: 'P', subject: 'Hi {{patient.firstName}}', htmlContent: '{{patient.phone}}' },
        'emails:write',
      ],
      ['SMS', '/api/v1/sms/templates', { name: 'P', body: 'Hi {{patient.firstName}} {{patient.phone}}' }, 'sms:write'],
    ])('the %s preview', async (_label, templates, body, scope) => {
      const template = await api.post<EmailTemplateDto | SmsTemplateDto>(templates, body);
      expect(template.status).toBe(201);
      const preview = `${templates}/${template.body.id}/preview`;
      const writer = client(app, await createKey(app, tenant.testKey, { role: 'STAFF', scopes: [scope] }));
      const refused = await writer.post(preview, { patientId: patient.id });
      expectProblem(refused, 403, 'insufficient_scope');
      expect(refused.text).not.toContain('Ada');
      expect(refused.text).not.toContain('4155550101');
      expect((await writer.post(preview, { variables: { patient: { firstName: 'Sample' } } })).status).toBe(200);
      const reader = client(app, await createKey(app, tenant.testKey, { role: 'STAFF', scopes: [scope, 'patients:read'] }));
      const shown = await reader.post(preview, { patientId: patient.id });
      expect(shown.status).toBe(200);
      expect(shown.text).toContain('4155550101');
    });
  });

  describe("an encounter's providerId and appointmentId must name this tenant's and mode's records", () => {
    const ENCOUNTERS = (patientId: string): string => `${PATIENTS}/${patientId}/clinical/encounters`;
    // A past visit, a month before the clock's now.
    const datetime = new Date(clock.nowMs() - 30 * 86_400_000).toISOString();
    let provider: { id: string };
    let appointment: { id: string; providerId: string };

    beforeAll(async () => {
      provider = await createProvider(app, tenant.testKey, { timezone: 'UTC', workingHours: everyDay() });
      const booked = await bookAppointment(app, tenant.testKey, {
        patientId: patient.id,
        providerId: provider.id,
        datetime: `${nextWeekday(2)}T10:00:00.000Z`,
      });
      appointment = booked;
    });

    const encounterCount = async (): Promise<number> =>
      Number(
        (await dataSource(app).query<{ n: string }[]>('SELECT count(*) AS n FROM patient_encounters WHERE tenant_id = $1', [tenant.id]))[0]
          .n,
      );

    it('refuses ids of another tenant, of the other mode, of nothing, and an appointment of another patient', async () => {
      const other = await createTenant(app);
      const otherPatient = await createPatient(app, other.testKey);
      const otherProvider = await createProvider(app, other.testKey, { timezone: 'UTC', workingHours: everyDay() });
      const otherAppointment = await bookAppointment(app, other.testKey, {
        patientId: otherPatient.id,
        providerId: otherProvider.id,
        datetime: `${nextWeekday(3)}T10:00:00.000Z`,
      });
      const liveProvider = await createProvider(app, tenant.liveKey);
      const secondPatient = await createPatient(app, tenant.testKey);
      const before = await encounterCount();
      for (const [label, patientId, body, field] of [
        ['a provider of another tenant', patient.id, { providerId: otherProvider.id }, 'providerId'],
        ['a provider of the live mode', patient.id, { providerId: liveProvider.id }, 'providerId'],
        ['no provider at all', patient.id, { providerId: '0193a5a8-7f3e-7c1a-9d52-3f0c8e1b2a40' }, 'providerId'],
        ['an appointment of another tenant', patient.id, { appointmentId: otherAppointment.id }, 'appointmentId'],
        ['no appointment at all', patient.id, { appointmentId: '0193a5a8-7f3e-7c1a-9d52-3f0c8e1b2a40' }, 'appointmentId'],
        ['an appointment of another patient', secondPatient.id, { appointmentId: appointment.id }, 'appointmentId'],
        [
          'a provider that is not the appointment’s',
          patient.id,
          { appointmentId: appointment.id, providerId: liveProvider.id },
          'providerId',
        ],
      ] as const) {
        const res = await api.post<Problem>(ENCOUNTERS(patientId), { datetime, ...body });
        expect([label, res.status, res.body.code, res.body.errors?.map((e) => e.field)]).toEqual([
          label,
          400,
          'validation_failed',
          [field],
        ]);
      }
      expect(await encounterCount()).toBe(before);
    });

    it("records an encounter naming this tenant's provider, or the patient's own appointment and its provider", async () => {
      const withProvider = await api.post<EncounterDto>(ENCOUNTERS(patient.id), { datetime, providerId: provider.id.toUpperCase() });
      expect([withProvider.status, withProvider.body.providerId]).toEqual([201, provider.id]);
      const withAppointment = await api.post<EncounterDto>(ENCOUNTERS(patient.id), {
        datetime,
        appointmentId: appointment.id,
        providerId: provider.id,
      });
      expect([withAppointment.status, withAppointment.body.appointmentId]).toEqual([201, appointment.id]);
    });
  });

  describe('bodies: null or none is no object; a route that takes no body takes none', () => {
    let provider: { id: string };
    beforeAll(async () => {
      provider = await createProvider(app, tenant.testKey);
    });

    it('PUT, PATCH and both previews refuse null and a missing body (400), and change nothing', async () => {
      const email = await api.post<EmailTemplateDto>('/api/v1/emails/templates', { name: 'B', subject: 'S', textContent: 'T' });
      const sms = await api.post<SmsTemplateDto>('/api/v1/sms/templates', { name: 'B', body: 'T' });
      const before = (await api.get<PatientDto>(`${PATIENTS}/${patient.id}`)).body;
      for (const [method, url] of [
        ['PUT', `${PATIENTS}/${patient.id}`],
        ['PATCH', `${SCHEDULING}/providers/${provider.id}`],
        ['PATCH', `/api/v1/emails/templates/${email.body.id}`],
        ['POST', `/api/v1/emails/templates/${email.body.id}/preview`],
        ['POST', `/api/v1/sms/templates/${sms.body.id}/preview`],
      ] as const) {
        for (const [label, options] of [
          ['null', json(tenant.testKey, 'null')],
          ['no body', { key: tenant.testKey }],
          ['no body, with a JSON content type', json(tenant.testKey, '')],
          ['an array', json(tenant.testKey, '[]')],
          ['a string', json(tenant.testKey, '"x"')],
        ] as const) {
          const res = await call<Problem | undefined>(app, method, url, options);
          expect([method, url, label, res.status, res.body?.code, res.body?.errors]).toEqual([
            method,
            url,
            label,
            400,
            'validation_failed',
            [{ field: 'body', message: expect.any(String) }],
          ]);
        }
      }
      expect((await api.get(`${PATIENTS}/${patient.id}`)).body).toEqual(before);
    });

    it('POST /webhooks/{id}/rotate-secret takes no body or {}, and refuses anything else', async () => {
      const hook = await api.post<WebhookWithSecretDto>('/api/v1/webhooks', {
        url: 'http://127.0.0.1:9/hook',
        events: ['patient.created'],
      });
      expect(hook.status).toBe(201);
      const rotate = `/api/v1/webhooks/${hook.body.id}/rotate-secret`;
      for (const raw of ['[]', '"x"', '{"zz":1}', 'null', '1', '[{}]']) {
        const res = await call<Problem>(app, 'POST', rotate, json(tenant.testKey, raw));
        expect([raw, res.status, res.body.code, res.body.errors?.[0]?.field]).toEqual([raw, 400, 'validation_failed', 'body']);
      }
      expect((await call(app, 'POST', rotate, { key: tenant.testKey })).status).toBe(200);
      expect((await call(app, 'POST', rotate, json(tenant.testKey, '{}'))).status).toBe(200);
      expect((await call(app, 'POST', rotate, json(tenant.testKey, ''))).status).toBe(200);
    });
  });

  describe('queries: platform 400s keep the route’s no-store, and integers are plain decimal digits', () => {
    it.each(['x=%00', 'search=a%00b', 'x=%ED%A0%80', 'x=%E0%A4%A', 'x=%C0%AF'])('%s on patient routes', async (q) => {
      for (const url of [
        PATIENTS,
        `${PATIENTS}/${patient.id}`,
        `${PATIENTS}/${patient.id}/clinical`,
        `${SCHEDULING}/appointments`,
        '/api/v1/events',
      ]) {
        const res = await api.get(`${url}?${q}`);
        expect([url, res.status, res.headers['cache-control']]).toEqual([url, 400, 'no-store']);
      }
    });

    it.each(['0x10', '1e1', '%2010', '10%20', '%2B10', '010', '10.0', '0b1', '1_0', '١٠'])('limit=%s is 400', async (value) => {
      for (const url of [PATIENTS, `${SCHEDULING}/providers`, '/api/v1/events']) {
        const res = await api.get<Problem>(`${url}?limit=${value}`);
        expect([url, res.status, res.body.errors]).toEqual([url, 400, [{ field: 'limit', message: expect.any(String) }]]);
      }
      expectProblem(await api.get(`${PATIENTS}?ageMin=${value}`), 400, 'validation_failed', 'ageMin');
    });

    it('limit=10, 1, 100 and 0-free decimals are read as written', async () => {
      for (const value of ['1', '10', '100']) expect((await api.get(`${PATIENTS}?limit=${value}`)).status).toBe(200);
      expectProblem(await api.get(`${PATIENTS}?limit=0`), 400, 'validation_failed', 'limit');
      expectProblem(await api.get(`${PATIENTS}?limit=-1`), 400, 'validation_failed', 'limit');
    });
  });

  describe('keys without patients:read see a minimal patient in appointments and events', () => {
    const MINIMAL = ['email', 'firstName', 'id', 'lastName', 'phone'];
    let appointmentId: string;

    beforeAll(async () => {
      const provider = await createProvider(app, tenant.testKey, { timezone: 'UTC', workingHours: everyDay() });
      const booked = await bookAppointment(app, tenant.testKey, {
        patientId: patient.id,
        providerId: provider.id,
        datetime: `${nextWeekday(4)}T11:00:00.000Z`,
      });
      appointmentId = booked.id;
      expect(booked.patient).toMatchObject({ dateOfBirth: '1990-04-01', address: '1 Secret Lane' });
    });

    it('GET, list and calendar of an appointment with scheduling:read alone', async () => {
      const scheduler = client(app, await createKey(app, tenant.testKey, { role: 'STAFF', scopes: ['scheduling:read'] }));
      const one = await scheduler.get<AppointmentDto>(`${SCHEDULING}/appointments/${appointmentId}`);
      expect(one.status).toBe(200);
      expect(Object.keys(one.body.patient).sort()).toEqual(MINIMAL);
      expect(one.body.patient).toEqual({
        id: patient.id,
        firstName: expect.any(String),
        lastName: expect.any(String),
        email: 'ada@example.com',
        phone: '+14155550101',
      });
      const list = await scheduler.get<AppointmentListDto>(`${SCHEDULING}/appointments?patientId=${patient.id}`);
      expect(list.body.appointments.length).toBeGreaterThan(0);
      for (const a of list.body.appointments) expect(Object.keys(a.patient).sort()).toEqual(MINIMAL);
      const ics = await scheduler.get(`${SCHEDULING}/appointments/${appointmentId}.ics`);
      expect(ics.status).toBe(200);
      expect(ics.text).not.toMatch(/Secret Lane|1990|ada@example\.com/);

      const both = client(app, await createKey(app, tenant.testKey, { role: 'STAFF', scopes: ['scheduling:read', 'patients:read'] }));
      expect((await both.get<AppointmentDto>(`${SCHEDULING}/appointments/${appointmentId}`)).body.patient).toMatchObject({
        address: '1 Secret Lane',
      });
    });

    it('GET /events and GET /events/{id} with webhooks:read alone', async () => {
      const watcher = client(app, await createKey(app, tenant.testKey, { role: 'STAFF', scopes: ['webhooks:read'] }));
      const booked = (await watcher.get<EventPageOf<AppointmentDto>>('/api/v1/events?type=appointment.booked&limit=100')).body.events;
      expect(booked.length).toBeGreaterThan(0);
      for (const event of booked) expect(Object.keys(event.data.patient).sort()).toEqual(MINIMAL);
      const created = (await watcher.get<EventPageOf<PatientSummaryDto>>('/api/v1/events?type=patient.created&limit=100')).body.events;
      const mine = created.find((e) => e.data.id === patient.id)!;
      expect(Object.keys(mine.data).sort()).toEqual(MINIMAL);
      expect(JSON.stringify([booked, created])).not.toMatch(/Secret Lane|1990-04-01/);
      const single = await watcher.get<EventOf<AppointmentDto>>(`/api/v1/events/${booked[0].id}`);
      expect(Object.keys(single.body.data.patient).sort()).toEqual(MINIMAL);

      const both = client(app, await createKey(app, tenant.testKey, { role: 'STAFF', scopes: ['webhooks:read', 'patients:read'] }));
      const full = (await both.get<EventOf<PatientDto>>(`/api/v1/events/${mine.id}`)).body;
      expect(full.data).toMatchObject({ id: patient.id, address: '1 Secret Lane', dateOfBirth: '1990-04-01' });
    });
  });
});
