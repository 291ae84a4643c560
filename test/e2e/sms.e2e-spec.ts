import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import twilio from 'twilio';
import { clock } from '../../src/common/time/clock';
import { UnsubscribeTokens } from '../../src/modules/email/unsubscribe-tokens.service';
import { SmsNumbersService } from '../../src/modules/sms-numbers';
import { call, client, createTenant, dataSource, type Problem } from '../helpers/app';
import { useApp } from '../helpers/use-app';
import type { EventPageOf } from '../helpers/events';
import type { PatientDto, PatientUpdatedEvent } from '../../src/modules/patients';
import type { BulkImportAcceptedDto } from '../../src/modules/patients/dto/bulk-import.dto';
import type { PatientListDto } from '../../src/modules/patients/dto/patient.dto';
import type { SettingsDto } from '../../src/modules/settings/dto/settings.dto';
import type { AppointmentDto } from '../../src/modules/scheduling/appointments/dto/appointment.dto';
import type { EmailMessageDto } from '../../src/modules/email/dto/email-message.dto';
import type { EmailSendAcceptedDto } from '../../src/modules/email/dto/send-email.dto';
import type { SmsMessageDto, SmsMessageListDto, SmsSendAcceptedDto } from '../../src/modules/sms/dto/sms-message.dto';
import type { SmsTemplateDto } from '../../src/modules/sms/dto/sms-template.dto';

import { auditEntries } from '../helpers/audit';
import { eventually } from '../helpers/eventually';
import { FakeTwilio } from '../helpers/fake-twilio';
import { createPatient, NO_RATE_LIMITS, waitForImport } from '../helpers/patients';
import { createProvider, everyDay, SCHEDULING } from '../helpers/scheduling';

const SEND = '/api/v1/sms/send';
const MESSAGES = '/api/v1/sms/messages';
const STATUS = '/api/v1/public/sms/twilio/status';
const INBOUND = '/api/v1/public/sms/twilio/inbound';
const PUBLIC_URL = 'https://api.clinic.test';
const FROM = '+15005550006';

let phones = 0;
/** A fresh US number per patient, so that each test's texts are its own at the fake. */
const newPhone = (): string => `+1202555${String(1000 + ++phones).slice(-4)}`;

/** Polls a message until its status is one of `statuses`. */
async function settled(
  app: NestFastifyApplication,
  key: string,
  id: string,
  statuses = ['sent', 'failed', 'suppressed'],
): Promise<SmsMessageDto> {
  return eventually(async () => {
    const res = await client(app, key).get<SmsMessageDto>(`${MESSAGES}/${id}`);
    expect(res.status).toBe(200);
    expect(statuses).toContain(res.body.status);
    return res.body;
  }, 30_000);
}

describe('SMS sending (a real BullMQ worker, the Twilio package against a local fake of its Messages API)', () => {
  let fake: FakeTwilio;

  beforeAll(async () => {
    fake = await new FakeTwilio().start();
  });
  const suite = useApp(() => ({
    ...NO_RATE_LIMITS,
    ...fake.env(FROM),
    PUBLIC_URL,
    SMS_MAX_ATTEMPTS: '3',
    SMS_RETRY_BASE_MS: '50',
    SMS_TIMEOUT_MS: '500',
    REDIS_PREFIX: `${process.env.REDIS_PREFIX}:sms`,
  }));
  beforeAll(async () => {
    expect((await suite.api(suite.tenant.liveKey).post('/api/v1/settings/practice', { name: 'Acme Clinic' })).status).toBe(200);
    expect((await suite.api().post('/api/v1/settings/practice', { name: 'Acme Staging' })).status).toBe(200);
  });
  afterAll(async () => {
    await fake.stop();
  });
  beforeEach(() => {
    fake.answer = () => ({ accept: true });
  });

  /** What `node dist/cli.js sms-numbers:assign --mode live` does (cli.e2e runs the command itself). */
  const assign = (tenantId: string, number: string) => suite.app.get(SmsNumbersService).assign({ tenantId, mode: 'live' }, number);

  /** Posts a Twilio callback signed as Twilio signs it (or with `signature` as given). */
  const callback = (path: string, fields: Record<string, string>, signature?: string) =>
    call<Problem>(suite.app, 'POST', path, {
      rawBody: new URLSearchParams(fields).toString(),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': signature ?? twilio.getExpectedTwilioSignature(fake.authToken, `${PUBLIC_URL}${path}`, fields),
      },
    });

  describe('test mode', () => {
    it('sends by patient and template, and by number and body, and never reaches the provider', async () => {
      const api = suite.api();
      const phone = newPhone();
      const patient = await createPatient(suite.app, suite.tenant.testKey, { firstName: 'Ada', phone });
      const template = await api.post<SmsTemplateDto>('/api/v1/sms/templates', {
        name: 'Hi',
        body: 'Hi {{patient.firstName}}, {{practice.name}}: {{when}}',
      });
      expect(template.status).toBe(201);
      const requestsBefore = fake.requests;

      const byPatient = await api.post<SmsSendAcceptedDto>(SEND, {
        patientId: patient.id,
        templateId: template.body.id,
        templateVariables: { when: 'Monday 09:30' },
      });
      expect(byPatient.status).toBe(202);
      expect(byPatient.body).toEqual({ messageId: expect.any(String), status: 'queued' });
      expect(byPatient.headers.location).toBe(`/api/v1/sms/messages/${byPatient.body.messageId}`);
      expect(byPatient.headers['cache-control']).toBe('no-store');
      const byNumber = await api.post<SmsSendAcceptedDto>(SEND, { to: '+12015550124', body: 'Ваш визит завтра' });
      expect(byNumber.status).toBe(202);

      const first = await settled(suite.app, suite.tenant.testKey, byPatient.body.messageId);
      expect(first).toEqual({
        id: byPatient.body.messageId,
        kind: 'send',
        patientId: patient.id,
        appointmentId: null,
        to: phone,
        body: 'Hi Ada, Acme Staging: Monday 09:30',
        segments: 1,
        encoding: 'GSM-7',
        status: 'sent',
        transport: 'test',
        providerMessageId: null,
        lastError: null,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      const second = await settled(suite.app, suite.tenant.testKey, byNumber.body.messageId);
      expect(second).toMatchObject({
        patientId: null,
        to: '+12015550124',
        encoding: 'UCS-2',
        segments: 1,
        transport: 'test',
        status: 'sent',
      });
      expect(fake.requests).toBe(requestsBefore);

      const list = await api.get<SmsMessageListDto>(`${MESSAGES}?patientId=${patient.id}&status=sent`);
      expect(list.status).toBe(200);
      expect(list.headers['cache-control']).toBe('no-store');
      expect(list.body.messages.map((m) => m.id)).toEqual([byPatient.body.messageId]);
    });

    it('refuses what it cannot send, naming the field', async () => {
      const api = suite.api();
      const noPhone = await createPatient(suite.app, suite.tenant.testKey);
      const cases: [unknown, string][] = [
        [{ to: '2025550100', body: 'x' }, 'to'],
        [{ to: '+12025550100' }, 'templateId'],
        [{ to: '+12025550100', body: 'x', templateId: '0193a5b2-7c1e-7d40-9a3e-2f0c1b4d5e6f' }, 'templateId'],
        [{ to: '+12025550100', patientId: noPhone.id, body: 'x' }, 'patientId'],
        [{ patientId: noPhone.id, body: 'x' }, 'patientId'],
        [{ to: '+12025550100', templateId: '0193a5b2-7c1e-7d40-9a3e-2f0c1b4d5e6f' }, 'templateId'],
        [{ to: '+12025550100', body: '{{#if}}' }, 'body'],
        [{ to: '+12025550100', body: '{{x}}', templateVariables: { x: 'y'.repeat(1601) } }, 'templateVariables'],
      ];
      for (const [body, field] of cases) {
        const res = await api.post<Problem>(SEND, body);
        expect({ body, status: res.status, code: res.body.code, fields: res.body.errors?.map((e) => e.field) }).toEqual({
          body,
          status: 400,
          code: 'validation_failed',
          fields: [field],
        });
      }
      expect((await api.get(`${MESSAGES}/0193a5b2-7c1e-7d40-9a3e-2f0c1b4d5e6f`)).status).toBe(404);
    });

    it('refuses numbers the practice may not text (premium-rate, satellite, international networks), by `to` and by patient', async () => {
      const api = suite.api();
      const refused = ['+19005550100', '+449012345678', '+979123456789', '+882123456789', '+870123456789', '+881612345678'];
      for (const to of [...refused, '+18005550100', '+447012345678']) {
        const res = await api.post<Problem>(SEND, { to, body: 'x' });
        expect({ to, status: res.status, code: res.body.code, errors: res.body.errors }).toEqual({
          to,
          status: 400,
          code: 'validation_failed',
          errors: [{ field: 'to', message: expect.stringMatching(/only mobile and fixed-line numbers may be texted/) }],
        });
      }
      // A patient may have such a phone (a clinic's line, say); texting it is refused, naming the patient.
      const premium = await createPatient(suite.app, suite.tenant.testKey, { phone: '+1 900 555 0100' });
      expect(premium.phone).toBe('+19005550100');
      const byPatient = await api.post<Problem>(SEND, { patientId: premium.id, body: 'x' });
      expect([byPatient.status, byPatient.body.errors]).toEqual([
        400,
        [{ field: 'patientId', message: expect.stringMatching(/^names a patient whose phone is a premium-rate number/) }],
      ]);
      expect((await api.get<SmsMessageListDto>(`${MESSAGES}?patientId=${premium.id}`)).body.messages).toEqual([]);
      // A US number is texted.
      expect((await api.post(SEND, { to: '+12015550123', body: 'x' })).status).toBe(202);
    });

    it('texts only the countries of practice settings smsCountries, by default the country of the sending number', async () => {
      const api = suite.api();
      const ukMobile = await createPatient(suite.app, suite.tenant.testKey, { phone: '+447400123457' });
      const refusals = async () => [
        (await api.post<Problem>(SEND, { to: '+447400123456', body: 'x' })).body,
        (await api.post<Problem>(SEND, { patientId: ukMobile.id, body: 'x' })).body,
      ];
      // TWILIO_FROM is a US number: a UK mobile is refused, by `to` and by patient.
      expect(await refusals()).toEqual([
        expect.objectContaining({
          status: 400,
          code: 'validation_failed',
          errors: [{ field: 'to', message: 'is a number of GB; the practice texts only US (practice settings smsCountries)' }],
        }),
        expect.objectContaining({
          status: 400,
          code: 'validation_failed',
          errors: [
            {
              field: 'patientId',
              message: 'names a patient whose phone is a number of GB; the practice texts only US (practice settings smsCountries)',
            },
          ],
        }),
      ]);
      expect((await api.get<SmsMessageListDto>(`${MESSAGES}?patientId=${ukMobile.id}`)).body.messages).toEqual([]);

      const chosen = await api.post<SettingsDto>('/api/v1/settings/practice', { smsCountries: ['US', 'GB'] });
      expect([chosen.status, chosen.body.settings.smsCountries]).toEqual([200, ['US', 'GB']]);
      expect((await api.get<SettingsDto>('/api/v1/settings/practice')).body.settings.smsCountries).toEqual(['US', 'GB']);
      expect((await api.post(SEND, { to: '+447400123456', body: 'x' })).status).toBe(202);
      expect((await api.post(SEND, { patientId: ukMobile.id, body: 'x' })).status).toBe(202);
      expect((await api.post(SEND, { to: '+12015550123', body: 'x' })).status).toBe(202);
      // Another kind of number stays refused whatever the countries; a country left out is refused.
      expect((await api.post<Problem>(SEND, { to: '+449012345678', body: 'x' })).body.errors).toEqual([
        { field: 'to', message: expect.stringMatching(/premium-rate/) },
      ]);
      expect((await api.post<Problem>(SEND, { to: '+33612345678', body: 'x' })).body.errors).toEqual([
        { field: 'to', message: 'is a number of FR; the practice texts only US, GB (practice settings smsCountries)' },
      ]);
      // Live mode has settings of its own: still the default there.
      const live = await suite.api(suite.tenant.liveKey).post<Problem>(SEND, { to: '+447400123456', body: 'x' });
      expect([live.status, live.body.errors?.map((e) => e.field)]).toEqual([400, ['to']]);

      // null deletes the setting: the sending number's country again.
      expect((await api.post('/api/v1/settings/practice', { smsCountries: null })).status).toBe(200);
      expect((await api.get<SettingsDto>('/api/v1/settings/practice')).body.settings).not.toHaveProperty('smsCountries');
      expect((await refusals()).map((p) => p.errors?.map((e) => e.field))).toEqual([['to'], ['patientId']]);
    });

    it('refuses practice settings smsCountries that are not a list of one to 50 upper-case ISO country codes, naming it', async () => {
      const api = suite.api();
      const fifty = [
        'US',
        'GB',
        'FR',
        'DE',
        'IE',
        'ES',
        'IT',
        'PT',
        'NL',
        'BE',
        'LU',
        'AT',
        'CH',
        'DK',
        'SE',
        'NO',
        'FI',
        'IS',
        'PL',
        'CZ',
        'SK',
        'HU',
        'SI',
        'HR',
        'RO',
        'BG',
        'GR',
        'CY',
        'MT',
        'EE',
        'LV',
        'LT',
        'CA',
        'MX',
        'AU',
        'NZ',
        'JP',
        'KR',
        'SG',
        'HK',
        'IN',
        'ZA',
        'BR',
        'AR',
        'CL',
        'CO',
        'PE',
        'IL',
        'AE',
        'TR',
      ];
      for (const smsCountries of [['XX'], ['us'], ['US', 'us'], 'US', { US: true }, 1, [], [1], [...fifty, 'UA'], ['GBR'], ['UK']]) {
        const res = await api.post<Problem>('/api/v1/settings/practice', { name: 'Acme Staging', smsCountries });
        expect({ smsCountries, status: res.status, code: res.body.code, fields: res.body.errors?.map((e) => e.field) }).toEqual({
          smsCountries,
          status: 400,
          code: 'validation_failed',
          fields: ['smsCountries'],
        });
      }
      expect((await api.get<SettingsDto>('/api/v1/settings/practice')).body.settings).not.toHaveProperty('smsCountries');
      expect((await api.post('/api/v1/settings/practice', { smsCountries: fifty })).status).toBe(200);
      expect((await api.post('/api/v1/settings/practice', { smsCountries: null })).status).toBe(200);
    });

    it('honours Idempotency-Key: a retried send is one message', async () => {
      const api = suite.api();
      const body = { to: newPhone(), body: 'Once' };
      const first = await api.post<SmsSendAcceptedDto>(SEND, body, { 'idempotency-key': 'sms-once' });
      const again = await api.post<SmsSendAcceptedDto>(SEND, body, { 'idempotency-key': 'sms-once' });
      expect(first.status).toBe(202);
      expect(again.status).toBe(202);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body.messageId).toBe(first.body.messageId);
      const rows = await dataSource(suite.app).query<{ n: number }[]>(`SELECT count(*)::int AS n FROM sms_messages WHERE to_number = $1`, [
        body.to,
      ]);
      expect(rows[0].n).toBe(1);
    });
  });

  describe('live mode through Twilio', () => {
    it('sends with the form fields Twilio expects, from TWILIO_FROM or the practice number, and records the sid', async () => {
      const api = suite.api(suite.tenant.liveKey);
      const to = newPhone();
      const res = await api.post<SmsSendAcceptedDto>(SEND, { to, body: 'Your results are ready 🎉' });
      expect(res.status).toBe(202);
      const sent = await settled(suite.app, suite.tenant.liveKey, res.body.messageId);
      const [received] = fake.to(to);
      expect(received.fields).toEqual({
        To: to,
        From: FROM,
        Body: 'Your results are ready 🎉',
        StatusCallback: `${PUBLIC_URL}${STATUS}`,
      });
      expect(sent).toMatchObject({ status: 'sent', transport: 'twilio', providerMessageId: received.sid, encoding: 'UCS-2', segments: 1 });

      // A practice with a number of its own (operators assign it: the CLI's sms-numbers:assign) sends from it.
      const other = await createTenant(suite.app);
      await assign(other.id, '+15005550009');
      const to2 = newPhone();
      const own = await suite.api(other.liveKey).post<SmsSendAcceptedDto>(SEND, { to: to2, body: 'From our own number' });
      await settled(suite.app, other.liveKey, own.body.messageId);
      expect(fake.to(to2).map((m) => m.fields.From)).toEqual(['+15005550009']);
    });

    it('shows the assigned number in the practice settings, and refuses a settings write of it', async () => {
      const own = await createTenant(suite.app);
      const api = suite.api(own.liveKey);
      expect((await api.get<SettingsDto>('/api/v1/settings/practice')).body.settings).toEqual({});
      for (const body of [{ smsFromNumber: FROM }, { smsFromNumber: 'not a number', name: 'Takeover' }, { smsFromNumber: null }]) {
        const res = await api.post<Problem>('/api/v1/settings/practice', body);
        expect({ status: res.status, code: res.body.code, errors: res.body.errors }).toEqual({
          status: 400,
          code: 'validation_failed',
          errors: [{ field: 'smsFromNumber', message: expect.stringMatching(/assigned by an operator/) }],
        });
      }
      await assign(own.id, '+15005550012');
      expect((await api.post<SettingsDto>('/api/v1/settings/practice', { name: 'Own Clinic' })).body.settings).toEqual({
        name: 'Own Clinic',
        smsFromNumber: '+15005550012',
      });
      expect((await api.get<SettingsDto>('/api/v1/settings/practice')).body.settings).toEqual({
        name: 'Own Clinic',
        smsFromNumber: '+15005550012',
      });
      // Test mode has a number of its own (none here).
      expect((await suite.api(own.testKey).get<SettingsDto>('/api/v1/settings/practice')).body.settings).toEqual({});
    });

    it('retries a 500 and a timeout with backoff, then sends once; a refusal of the message fails it', async () => {
      const api = suite.api(suite.tenant.liveKey);
      const flaky = newPhone();
      const slow = newPhone();
      const refused = newPhone();
      const tries = new Map<string, number>();
      fake.answer = (fields) => {
        const n = (tries.get(fields.To) ?? 0) + 1;
        tries.set(fields.To, n);
        if (fields.To === flaky && n === 1) return { accept: false, status: 500 };
        if (fields.To === slow && n === 1) return { accept: true, delayMs: 2_000 };
        if (fields.To === refused) return { accept: false, status: 400, code: 21211 };
        return { accept: true };
      };
      const ids = await Promise.all(
        [flaky, slow, refused].map(async (to) => (await api.post<SmsSendAcceptedDto>(SEND, { to, body: `To ${to}` })).body.messageId),
      );
      const [a, b, c] = await Promise.all(ids.map((id) => settled(suite.app, suite.tenant.liveKey, id)));
      expect(a).toMatchObject({ status: 'sent', lastError: null });
      expect(b).toMatchObject({ status: 'sent', lastError: null });
      expect(c).toMatchObject({ status: 'failed', lastError: 'Twilio answered 400 (error 21211)' });
      expect([tries.get(flaky), tries.get(slow), tries.get(refused)]).toEqual([2, 2, 1]);
      // The timed-out try was never accepted; each message reached the provider once.
      expect([fake.to(flaky).length, fake.to(slow).length, fake.to(refused).length]).toEqual([1, 1, 0]);
      const attempts = await dataSource(suite.app).query<{ attempts: number }[]>(
        `SELECT attempts FROM sms_messages WHERE id = ANY($1::uuid[]) ORDER BY to_number`,
        [ids],
      );
      expect(attempts.map((r) => r.attempts).sort()).toEqual([1, 2, 2]);
      const failed = await suite.api(suite.tenant.liveKey).get<EventPageOf<{ id: string }>>(`/api/v1/events?type=sms.failed`);
      expect(failed.body.events.map((e) => e.data.id)).toContain(ids[2]);
    });

    it('takes status callbacks with a good signature (never moving back from a final status) and refuses a bad one', async () => {
      const api = suite.api(suite.tenant.liveKey);
      const to = newPhone();
      const { messageId } = (await api.post<SmsSendAcceptedDto>(SEND, { to, body: 'Status please' })).body;
      const sent = await settled(suite.app, suite.tenant.liveKey, messageId);
      const fields = { MessageSid: sent.providerMessageId!, MessageStatus: 'delivered', AccountSid: fake.accountSid, To: to };

      const forged = await callback(STATUS, fields, 'bm90IGEgc2lnbmF0dXJl');
      expect(forged.status).toBe(403);
      expect(forged.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(forged.body.code).toBe('invalid_signature');
      const unsigned = await call(suite.app, 'POST', STATUS, {
        rawBody: new URLSearchParams(fields).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(unsigned.status).toBe(403);
      // Signed for other fields: the signature covers the body.
      const tampered = await callback(
        STATUS,
        { ...fields, MessageStatus: 'failed' },
        twilio.getExpectedTwilioSignature(fake.authToken, `${PUBLIC_URL}${STATUS}`, fields),
      );
      expect(tampered.status).toBe(403);
      expect((await api.get<SmsMessageDto>(`${MESSAGES}/${messageId}`)).body.status).toBe('sent');

      expect((await callback(STATUS, { ...fields, MessageStatus: 'sent' })).status).toBe(204);
      expect((await api.get<SmsMessageDto>(`${MESSAGES}/${messageId}`)).body.status).toBe('sent');
      expect((await callback(STATUS, fields)).status).toBe(204);
      expect((await api.get<SmsMessageDto>(`${MESSAGES}/${messageId}`)).body.status).toBe('delivered');
      expect((await callback(STATUS, { ...fields, MessageStatus: 'undelivered', ErrorCode: '30003' })).status).toBe(204);
      expect((await api.get<SmsMessageDto>(`${MESSAGES}/${messageId}`)).body).toMatchObject({ status: 'delivered', lastError: null });
      const delivered = await api.get<EventPageOf<{ id: string }>>(`/api/v1/events?type=sms.delivered`);
      expect(delivered.body.events.map((e) => e.data.id)).toEqual([messageId]);

      // Another message reported undelivered keeps Twilio's error code.
      const second = (await api.post<SmsSendAcceptedDto>(SEND, { to, body: 'Again' })).body.messageId;
      const sid = (await settled(suite.app, suite.tenant.liveKey, second)).providerMessageId!;

      expect((await callback(STATUS, { MessageSid: sid, MessageStatus: 'undelivered', ErrorCode: '30003' })).status).toBe(204);
      expect((await api.get<SmsMessageDto>(`${MESSAGES}/${second}`)).body).toMatchObject({
        status: 'undelivered',
        lastError: 'Twilio reported undelivered (error 30003)',
      });
    });
  });

  describe('consent: one record per patient, whatever changed it', () => {
    it('STOP opts the phone out for every practice sending from that number, START opts it back in', async () => {
      const phone = newPhone();
      const patient = await createPatient(suite.app, suite.tenant.liveKey, { phone });
      // Another practice on the same number, and one on a number of its own: only the first is concerned.
      const sameNumber = await createTenant(suite.app);
      const ownNumber = await createTenant(suite.app);
      await assign(ownNumber.id, '+15005550010');
      const neighbour = await createPatient(suite.app, sameNumber.liveKey, { phone });
      const elsewhere = await createPatient(suite.app, ownNumber.liveKey, { phone });
      const staging = await createPatient(suite.app, suite.tenant.testKey, { phone });

      const stop = await callback(INBOUND, { From: phone, To: FROM, Body: ' Stop ', MessageSid: 'SMinbound1' });
      expect(stop.status).toBe(200);
      expect(stop.headers['content-type']).toMatch(/^text\/xml/);
      expect(stop.text).toBe('<?xml version="1.0" encoding="UTF-8"?><Response></Response>');
      const optedOut = async (key: string, id: string): Promise<boolean> =>
        (await suite.api(key).get<PatientDto>(`/api/v1/patients/${id}`)).body.smsOptOut;
      expect(await optedOut(suite.tenant.liveKey, patient.id)).toBe(true);
      expect(await optedOut(sameNumber.liveKey, neighbour.id)).toBe(true);
      expect(await optedOut(ownNumber.liveKey, elsewhere.id)).toBe(false);
      expect(await optedOut(suite.tenant.testKey, staging.id)).toBe(false);

      const updated = (
        await suite.api(suite.tenant.liveKey).get<EventPageOf<PatientUpdatedEvent>>(`/api/v1/events?type=patient.updated`)
      ).body.events.find((e) => e.data.id === patient.id);
      expect(updated!.data).toMatchObject({ smsOptOut: true, previous: { smsOptOut: false } });
      const opted = (await suite.api(suite.tenant.liveKey).get<EventPageOf<Record<string, unknown>>>(`/api/v1/events?type=sms.opted_out`))
        .body.events;
      expect(opted.map((e) => e.data)).toEqual([{ patientId: patient.id, phone, source: 'sms', keyword: 'STOP' }]);
      const entries = await auditEntries(suite.app, suite.tenant.liveKey, `resourceId=${patient.id}&action=patient.sms_consent`, 1);
      expect(entries[0]).toMatchObject({ apiKeyId: null, resourceType: 'patient', status: 200 });

      // Later sends are suppressed, and never reach the provider.
      const requests = fake.requests;
      const send = await suite.api(suite.tenant.liveKey).post<SmsSendAcceptedDto>(SEND, { patientId: patient.id, body: 'Are you there?' });
      expect(send.status).toBe(202);
      expect(await settled(suite.app, suite.tenant.liveKey, send.body.messageId)).toMatchObject({
        status: 'suppressed',
        lastError: 'the patient opted out of SMS',
      });
      expect(fake.requests).toBe(requests);

      // A repeated STOP changes nothing more.
      expect((await callback(INBOUND, { From: phone, To: FROM, Body: 'STOPALL' })).status).toBe(200);
      await auditEntries(suite.app, suite.tenant.liveKey, `resourceId=${patient.id}&action=patient.sms_consent`, 1);

      expect((await callback(INBOUND, { From: phone, To: FROM, Body: 'start' })).status).toBe(200);
      expect(await optedOut(suite.tenant.liveKey, patient.id)).toBe(false);
      expect(await optedOut(sameNumber.liveKey, neighbour.id)).toBe(false);
      const resent = await suite.api(suite.tenant.liveKey).post<SmsSendAcceptedDto>(SEND, { patientId: patient.id, body: 'Welcome back' });
      expect(await settled(suite.app, suite.tenant.liveKey, resent.body.messageId)).toMatchObject({ status: 'sent', transport: 'twilio' });
      expect(fake.to(phone).map((m) => m.fields.Body)).toEqual(['Welcome back']);

      const forged = await callback(INBOUND, { From: phone, To: FROM, Body: 'STOP' }, 'forged');
      expect(forged.status).toBe(403);
      expect(forged.body.code).toBe('invalid_signature');
      expect(await optedOut(suite.tenant.liveKey, patient.id)).toBe(false);
    });

    it('STOP holds for the phone whatever names it: a send by bare number is suppressed until START', async () => {
      const api = suite.api(suite.tenant.liveKey);
      const phone = newPhone();
      const patient = await createPatient(suite.app, suite.tenant.liveKey, { phone });
      expect((await callback(INBOUND, { From: phone, To: FROM, Body: 'STOP' })).status).toBe(200);
      expect((await api.get<PatientDto>(`/api/v1/patients/${patient.id}`)).body.smsOptOut).toBe(true);

      const byNumber = await api.post<SmsSendAcceptedDto>(SEND, { to: phone, body: 'By number' });
      expect(byNumber.status).toBe(202);
      expect(await settled(suite.app, suite.tenant.liveKey, byNumber.body.messageId)).toMatchObject({
        patientId: null,
        status: 'suppressed',
        lastError: 'the phone replied STOP to the number this practice texts from',
      });
      // A phone no patient has is held by its STOP too.
      const stranger = newPhone();
      expect((await callback(INBOUND, { From: stranger, To: FROM, Body: 'quit' })).status).toBe(200);
      const toStranger = await api.post<SmsSendAcceptedDto>(SEND, { to: stranger, body: 'Hello?' });
      expect(await settled(suite.app, suite.tenant.liveKey, toStranger.body.messageId)).toMatchObject({ status: 'suppressed' });
      expect(fake.to(phone)).toEqual([]);
      expect(fake.to(stranger)).toEqual([]);

      expect((await callback(INBOUND, { From: phone, To: FROM, Body: 'UNSTOP' })).status).toBe(200);
      const again = await api.post<SmsSendAcceptedDto>(SEND, { to: phone, body: 'By number again' });
      expect(await settled(suite.app, suite.tenant.liveKey, again.body.messageId)).toMatchObject({ status: 'sent', transport: 'twilio' });
      expect(fake.to(phone).map((m) => m.fields.Body)).toEqual(['By number again']);
    });

    it('a STOP opts out of the number it was sent to: a practice with its own number still texts the phone', async () => {
      const phone = newPhone();
      const own = await createTenant(suite.app);
      await assign(own.id, '+15005550011');
      const theirs = await createPatient(suite.app, own.liveKey, { phone });
      const ours = await createPatient(suite.app, suite.tenant.liveKey, { phone });
      expect((await callback(INBOUND, { From: phone, To: FROM, Body: 'STOP' })).status).toBe(200);

      const fromOurs = await suite.api(suite.tenant.liveKey).post<SmsSendAcceptedDto>(SEND, { to: phone, body: 'From TWILIO_FROM' });
      expect(await settled(suite.app, suite.tenant.liveKey, fromOurs.body.messageId)).toMatchObject({ status: 'suppressed' });
      const fromTheirs = await suite.api(own.liveKey).post<SmsSendAcceptedDto>(SEND, { to: phone, body: 'From their own' });
      expect(await settled(suite.app, own.liveKey, fromTheirs.body.messageId)).toMatchObject({ status: 'sent' });
      expect(fake.to(phone).map((m) => [m.fields.From, m.fields.Body])).toEqual([['+15005550011', 'From their own']]);

      // A STOP to their number reaches their patient alone, and now holds for their sends by patient and by number.
      expect((await callback(INBOUND, { From: phone, To: '+15005550011', Body: 'END' })).status).toBe(200);
      const optedOut = async (key: string, id: string): Promise<boolean> =>
        (await suite.api(key).get<PatientDto>(`/api/v1/patients/${id}`)).body.smsOptOut;
      expect(await optedOut(own.liveKey, theirs.id)).toBe(true);
      expect((await callback(INBOUND, { From: phone, To: FROM, Body: 'START' })).status).toBe(200);
      expect([await optedOut(suite.tenant.liveKey, ours.id), await optedOut(own.liveKey, theirs.id)]).toEqual([false, true]);
      for (const body of [{ to: phone }, { patientId: theirs.id }]) {
        const res = await suite.api(own.liveKey).post<SmsSendAcceptedDto>(SEND, { ...body, body: 'Still there?' });
        expect((await settled(suite.app, own.liveKey, res.body.messageId)).status).toBe('suppressed');
      }
    });

    it('answers HELP naming the practice, in TwiML', async () => {
      const phone = newPhone();
      await createPatient(suite.app, suite.tenant.liveKey, { phone });
      const help = await callback(INBOUND, { From: phone, To: FROM, Body: 'HELP' });
      expect(help.status).toBe(200);
      expect(help.text).toBe(
        '<?xml version="1.0" encoding="UTF-8"?><Response><Message>Acme Clinic: appointment messages. Reply STOP to opt out, START to opt back in. Msg &#38; data rates may apply.</Message></Response>',
      );
    });

    it('C confirms the next scheduled appointment within 48 hours', async () => {
      const phone = newPhone();
      const patient = await createPatient(suite.app, suite.tenant.liveKey, { phone });
      const provider = await createProvider(suite.app, suite.tenant.liveKey, { timezone: 'UTC', workingHours: everyDay() });
      const quarter = 15 * 60_000;
      const book = async (hoursAhead: number): Promise<string> => {
        const datetime = new Date(Math.ceil((clock.nowMs() + hoursAhead * 3600_000) / quarter) * quarter).toISOString();
        const res = await suite.api(suite.tenant.liveKey).post<AppointmentDto>(`${SCHEDULING}/book`, {
          patientId: patient.id,
          providerId: provider.id,
          datetime,
          duration: 30,
        });
        expect(res.status).toBe(201);
        return res.body.id;
      };
      const later = await book(60);
      const next = await book(3);
      const status = async (id: string): Promise<string> =>
        (await suite.api(suite.tenant.liveKey).get<AppointmentDto>(`${SCHEDULING}/appointments/${id}`)).body.status;

      const reply = await callback(INBOUND, { From: phone, To: FROM, Body: 'C' });
      expect(reply.status).toBe(200);
      expect(reply.text).toContain('<Message>Thank you: your appointment is confirmed.</Message>');
      expect([await status(next), await status(later)]).toEqual(['confirmed', 'scheduled']);
      // The one after it is more than 48 hours away: nothing left to confirm.
      const again = await callback(INBOUND, { From: phone, To: FROM, Body: 'CONFIRM' });
      expect(again.text).toContain('We found no appointment to confirm in the next 48 hours.');
      expect(await status(later)).toBe('scheduled');
    });

    it('a bulk import row writes smsOptOut, for a new patient and an existing one', async () => {
      const api = suite.api(suite.tenant.liveKey);
      const rows = [
        { firstName: 'Bulk', lastName: 'New', externalId: 'sms-bulk-1', smsOptOut: true },
        { firstName: 'Bulk', lastName: 'Old', externalId: 'sms-bulk-2' },
      ];
      const first = await api.post<BulkImportAcceptedDto>('/api/v1/patients/bulk-import', { patients: rows });
      expect((await waitForImport(suite.app, suite.tenant.liveKey, first.body.jobId)).created).toBe(2);
      const again = await api.post<BulkImportAcceptedDto>('/api/v1/patients/bulk-import', { patients: [{ ...rows[1], smsOptOut: true }] });
      expect((await waitForImport(suite.app, suite.tenant.liveKey, again.body.jobId)).updated).toBe(1);
      const listed = (await api.get<PatientListDto>('/api/v1/patients?search=Bulk')).body.patients;
      expect(listed.map((p) => [p.externalId, p.smsOptOut]).sort()).toEqual([
        ['sms-bulk-1', true],
        ['sms-bulk-2', true],
      ]);
    });

    it('smsOptOut is writable like emailOptOut, and each flag decides its own channel', async () => {
      const api = suite.api(suite.tenant.liveKey);
      const phone = newPhone();
      const created = await api.post<PatientDto>('/api/v1/patients', {
        firstName: 'Grace',
        lastName: 'Hopper',
        phone,
        email: 'grace@example.test',
        smsOptOut: true,
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ smsOptOut: true, emailOptOut: false });
      const id = created.body.id;
      const sms = await api.post<SmsSendAcceptedDto>(SEND, { patientId: id, body: 'Hi' });
      expect(await settled(suite.app, suite.tenant.liveKey, sms.body.messageId)).toMatchObject({ status: 'suppressed' });

      const put = await api.put<PatientDto>(`/api/v1/patients/${id}`, { smsOptOut: false });
      expect(put.status).toBe(200);
      expect(put.body.smsOptOut).toBe(false);
      const event = (await api.get<EventPageOf<PatientUpdatedEvent>>(`/api/v1/events?type=patient.updated`)).body.events.find(
        (e) => e.data.id === id,
      );
      expect(event!.data.previous).toEqual({ smsOptOut: true });
      expect((await api.put(`/api/v1/patients/${id}`, { smsOptOut: null })).status).toBe(400);

      // The unsubscribe link sets emailOptOut: email to the patient is suppressed, SMS still goes.
      const token = suite.app.get(UnsubscribeTokens).token({ tenantId: suite.tenant.id, mode: 'live', patientId: id });
      expect((await call(suite.app, 'POST', `/api/v1/public/unsubscribe/${token}`)).status).toBe(200);
      const email = await api.post<EmailSendAcceptedDto>('/api/v1/emails/send', { patientId: id, subject: 'Hello', textContent: 'Hello' });
      expect(email.status).toBe(202);
      await eventually(async () => {
        expect((await api.get<EmailMessageDto>(`/api/v1/emails/messages/${email.body.messageId}`)).body.status).toBe('suppressed');
      });
      const afterLink = (await api.get<EventPageOf<PatientUpdatedEvent>>(`/api/v1/events?type=patient.updated`)).body.events.find(
        (e) => e.data.id === id && e.data.emailOptOut,
      );
      expect(afterLink!.data.previous).toEqual({ emailOptOut: false });
      const entries = await auditEntries(suite.app, suite.tenant.liveKey, `resourceId=${id}&action=patient.email_opt_out`, 1);
      expect(entries[0]).toMatchObject({ apiKeyId: null, resourceType: 'patient', status: 200 });
      const text = await api.post<SmsSendAcceptedDto>(SEND, { patientId: id, body: 'Still texting' });
      expect(await settled(suite.app, suite.tenant.liveKey, text.body.messageId)).toMatchObject({ status: 'sent' });
    });
  });
});
