import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { UnsubscribeTokens } from '../../src/modules/email/unsubscribe-tokens.service';
import { call, client, createTenant, type Problem, startApp } from '../helpers/app';
import type { EventPageOf } from '../helpers/events';
import type { PatientDto, PatientUpdatedEvent } from '../../src/modules/patients';
import type { EmailMessageDetailDto, EmailMessageListDto } from '../../src/modules/email/dto/email-message.dto';
import type { EmailSendAcceptedDto } from '../../src/modules/email/dto/send-email.dto';
import type { UnsubscribedDto } from '../../src/modules/email/dto/unsubscribe.dto';
import { eventually } from '../helpers/eventually';
import { createPatient, NO_RATE_LIMITS } from '../helpers/patients';
import { SmtpReceiver } from '../helpers/smtp-receiver';
import { useApp } from '../helpers/use-app';

const SEND = '/api/v1/emails/send';
const MESSAGES = '/api/v1/emails/messages';

async function settled(app: NestFastifyApplication, key: string, id: string): Promise<EmailMessageDetailDto> {
  return eventually(async () => {
    const res = await client(app, key).get<EmailMessageDetailDto>(`${MESSAGES}/${id}`);
    expect(['sent', 'failed', 'suppressed']).toContain(res.body.status);
    return res.body;
  }, 60_000);
}

/** The path of the one-click link in a received message's List-Unsubscribe header. */
function unsubscribePath(header: string | undefined): string {
  const match = /^<https?:\/\/[^/]+(\/api\/v1\/public\/unsubscribe\/[^>]+)>$/.exec(header ?? '');
  if (!match) throw new Error(`no one-click link in List-Unsubscribe: ${header}`);
  return match[1];
}

const oneClick = <T = UnsubscribedDto>(app: NestFastifyApplication, path: string, type = 'application/x-www-form-urlencoded') =>
  call<T>(app, 'POST', path, { rawBody: 'List-Unsubscribe=One-Click', headers: { 'content-type': type } });

describe('Email consent: RFC 8058 one-click unsubscribe and suppression', () => {
  const prefix = `${process.env.REDIS_PREFIX}:email-consent`;
  let receiver: SmtpReceiver;

  beforeAll(async () => {
    receiver = await new SmtpReceiver().start();
  });
  const suite = useApp(() => ({
    ...NO_RATE_LIMITS,
    SMTP_URL: receiver.url,
    TEST_SMTP_URL: receiver.url,
    PUBLIC_URL: 'https://api.example.test',
    REDIS_PREFIX: prefix,
  }));
  afterAll(async () => {
    await receiver.stop();
  });

  it('puts a signed one-click link in every message to a patient; following it opts the patient out and later sends end suppressed', async () => {
    const api = suite.api();
    const patient = await createPatient(suite.app, suite.tenant.testKey, { email: 'optout@example.test' });
    const first = await api.post<EmailSendAcceptedDto>(SEND, { patientId: patient.id, subject: 'Hello', textContent: 'Before' });
    expect((await settled(suite.app, suite.tenant.testKey, first.body.messageId)).status).toBe('sent');
    const [received] = receiver.byMessageId(first.body.messageId);
    expect(received.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
    expect(received.headers['list-unsubscribe']).toMatch(/^<https:\/\/api\.example\.test\/api\/v1\/public\/unsubscribe\/[\w.-]+>$/);
    const path = unsubscribePath(received.headers['list-unsubscribe']);

    // No key: the token is the credential. Mail clients post a form.
    const res = await oneClick(suite.app, path);
    expect(res.status).toBe(200);
    expect(res.body.message).toMatch(/Unsubscribed/);
    expect((await api.get<PatientDto>(`/api/v1/patients/${patient.id}`)).body.emailOptOut).toBe(true);
    const events = await api.get<EventPageOf<PatientUpdatedEvent>>('/api/v1/events?type=patient.updated&limit=100');
    expect(events.body.events.some((e) => e.data.id === patient.id && e.data.emailOptOut === true)).toBe(true);
    // Again (a second click, multipart this time) is harmless.
    expect((await oneClick(suite.app, path, 'multipart/form-data; boundary=x')).status).toBe(200);

    const later = await api.post<EmailSendAcceptedDto>(SEND, { patientId: patient.id, subject: 'Hello', textContent: 'After' });
    expect(later.status).toBe(202);
    const message = await settled(suite.app, suite.tenant.testKey, later.body.messageId);
    expect(message).toMatchObject({ status: 'suppressed', lastError: expect.stringMatching(/unsubscribed/) });
    expect(receiver.byMessageId(later.body.messageId)).toHaveLength(0);
    expect((await api.get<EmailMessageListDto>(`${MESSAGES}?status=suppressed`)).body.messages.map((m) => m.id)).toContain(
      later.body.messageId,
    );
  });

  it('answers 404 to an altered, forged or malformed token, and changes nothing', async () => {
    const api = suite.api();
    const patient = await createPatient(suite.app, suite.tenant.testKey, { email: 'keep@example.test' });
    const other = await createPatient(suite.app, suite.tenant.testKey, { email: 'other@example.test' });
    const sent = await api.post<EmailSendAcceptedDto>(SEND, { patientId: patient.id, subject: 'Hi', textContent: 'x' });
    await settled(suite.app, suite.tenant.testKey, sent.body.messageId);
    const path = unsubscribePath(receiver.byMessageId(sent.body.messageId)[0].headers['list-unsubscribe']);
    const token = path.split('/').pop()!;
    const [body, kid, mac] = token.split('.');

    // The payload rewritten to name another patient, with the original signature.
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as object;
    const forged = Buffer.from(JSON.stringify({ ...payload, p: other.id })).toString('base64url');
    const flipped = mac.slice(0, -1) + (mac.endsWith('A') ? 'B' : 'A');
    for (const bad of [`${forged}.${kid}.${mac}`, `${body}.${kid}.${flipped}`, `${body}.${kid}`, 'garbage', `${body}.00000000.${mac}`]) {
      const res = await oneClick<Problem | undefined>(suite.app, `/api/v1/public/unsubscribe/${bad}`);
      expect({ bad, status: res.status, code: res.body?.code }).toEqual({ bad, status: 404, code: 'not_found' });
    }
    expect((await api.get<PatientDto>(`/api/v1/patients/${patient.id}`)).body.emailOptOut).toBe(false);
    expect((await api.get<PatientDto>(`/api/v1/patients/${other.id}`)).body.emailOptOut).toBe(false);
  });

  it('puts no unsubscribe link in a message to a bare address, and refuses other body types', async () => {
    const sent = await suite.api().post<EmailSendAcceptedDto>(SEND, {
      to: 'bare@example.test',
      subject: 'Hi',
      textContent: 'x',
    });
    await settled(suite.app, suite.tenant.testKey, sent.body.messageId);
    expect(receiver.byMessageId(sent.body.messageId)[0].headers['list-unsubscribe']).toBeUndefined();
    expect((await oneClick(suite.app, '/api/v1/public/unsubscribe/garbage', 'text/plain')).status).toBe(415);
    // Form bodies stay refused everywhere else.
    const form = await call(suite.app, 'POST', SEND, {
      key: suite.tenant.testKey,
      rawBody: 'a=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
  });

  it('suppresses a message queued before the patient opted out and sent after', async () => {
    // Queued by an API without workers; the workers start only after the click.
    const api = await startApp({
      ...NO_RATE_LIMITS,
      WORKERS: 'off',
      SMTP_URL: receiver.url,
      TEST_SMTP_URL: receiver.url,
      REDIS_PREFIX: `${prefix}:late`,
    });
    try {
      const t = await createTenant(api);
      const patient = await createPatient(api, t.testKey, { email: 'late@example.test' });
      const queued = await client(api, t.testKey).post<EmailSendAcceptedDto>(SEND, {
        patientId: patient.id,
        subject: 'Late',
        textContent: 'x',
      });
      expect(queued.status).toBe(202);
      expect((await client(api, t.testKey).get<EmailMessageDetailDto>(`${MESSAGES}/${queued.body.messageId}`)).body.status).toBe('queued');
      const token = api.get(UnsubscribeTokens).token({ tenantId: t.id, mode: 'test', patientId: patient.id });
      expect((await oneClick(api, `/api/v1/public/unsubscribe/${token}`)).status).toBe(200);

      const workers = await startApp({
        ...NO_RATE_LIMITS,
        SMTP_URL: receiver.url,
        TEST_SMTP_URL: receiver.url,
        REDIS_PREFIX: `${prefix}:late`,
      });
      try {
        expect((await settled(api, t.testKey, queued.body.messageId)).status).toBe('suppressed');
        expect(receiver.byMessageId(queued.body.messageId)).toHaveLength(0);
      } finally {
        await workers.close();
      }
    } finally {
      await api.close();
    }
  });

  it('is limited per client IP, like every public route', async () => {
    const limited = await startApp({
      WORKERS: 'off',
      RATE_LIMIT_IP_PER_SECOND: '2',
      RATE_LIMIT_IP_PER_HOUR: '0',
      REDIS_PREFIX: `${prefix}:ip`,
    });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await call(limited, 'POST', '/api/v1/public/unsubscribe/garbage', { remoteAddress: '203.0.113.7' });
        statuses.push(res.status);
      }
      expect(statuses).toEqual([404, 404, 429, 429]);
      // Another address has its own window.
      expect((await call(limited, 'POST', '/api/v1/public/unsubscribe/garbage', { remoteAddress: '203.0.113.8' })).status).toBe(404);
    } finally {
      await limited.close();
    }
  });
});
