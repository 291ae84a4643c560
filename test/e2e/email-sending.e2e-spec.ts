import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DataSource } from 'typeorm';
import { EmailMessagesService } from '../../src/modules/email/email-messages.service';
import { JobOutboxRelay } from '../../src/common/queue/job-outbox-relay';
import { clock } from '../../src/common/time/clock';
import { client, createTenant, startApp } from '../helpers/app';
import { useApp } from '../helpers/use-app';
import type { EventPageOf } from '../helpers/events';
import type { AuthContext } from '../../src/common/auth/auth.types';
import type { EmailMessageDetailDto, EmailMessageListDto } from '../../src/modules/email/dto/email-message.dto';
import type { EmailTemplateDto } from '../../src/modules/email/dto/email-template.dto';
import type { EmailSendAcceptedDto } from '../../src/modules/email/dto/send-email.dto';

import { eventually } from '../helpers/eventually';
import { createPatient, NO_RATE_LIMITS } from '../helpers/patients';
import { SmtpReceiver } from '../helpers/smtp-receiver';

const TEMPLATES = '/api/v1/emails/templates';
const SEND = '/api/v1/emails/send';
const MESSAGES = '/api/v1/emails/messages';
const IDLE_CLOSE_MS = 1_000;

/** Polls a message until its status is one of `statuses`. */
async function settled(
  app: NestFastifyApplication,
  key: string,
  id: string,
  statuses = ['sent', 'failed', 'suppressed'],
): Promise<EmailMessageDetailDto> {
  return eventually(async () => {
    const res = await client(app, key).get<EmailMessageDetailDto>(`${MESSAGES}/${id}`);
    expect(res.status).toBe(200);
    expect(statuses).toContain(res.body.status);
    return res.body;
  }, 60_000);
}

describe('Email sending over SMTP (a real BullMQ worker and a real SMTP receiver)', () => {
  let receiver: SmtpReceiver;

  beforeAll(async () => {
    // It ends sessions idle for a second, as relays do after a while: the worker's pooled connections die.
    receiver = await new SmtpReceiver().start(0, { idleTimeoutMs: IDLE_CLOSE_MS });
  });
  const suite = useApp(() => ({
    ...NO_RATE_LIMITS,
    SMTP_URL: receiver.url,
    TEST_SMTP_URL: receiver.url,
    EMAIL_FROM: 'Acme Clinic <clinic@acme.test>',
    EMAIL_MAX_ATTEMPTS: '3',
    EMAIL_RETRY_BASE_MS: '50',
    // Its own queues: no other app of this run takes these jobs.
    REDIS_PREFIX: `${process.env.REDIS_PREFIX}:email-sending`,
  }));
  afterAll(async () => {
    await receiver.stop();
  });

  beforeEach(() => {
    receiver.answer = () => ({ accept: true });
  });

  it('delivers a templated send to the patient exactly once, placeholders rendered and HTML-escaped, and records it sent', async () => {
    const api = suite.api();
    expect((await api.post('/api/v1/settings/practice', { name: 'Acme "Clinic"' })).status).toBe(200);
    const patient = await createPatient(suite.app, suite.tenant.testKey, {
      firstName: 'Ada <b>',
      lastName: 'Lovelace & Co',
      email: 'ada@example.test',
    });
    const template = await api.post<EmailTemplateDto>(TEMPLATES, {
      name: 'Reminder',
      subject: 'Hello {{patient.firstName}}',
      htmlContent: '<p>Hi {{patient.firstName}} {{patient.lastName}} from {{practice.name}}, {{when}}</p>',
      textContent: 'Hi {{patient.firstName}} {{patient.lastName}} from {{practice.name}}, {{when}}',
    });
    expect(template.status).toBe(201);
    expect(template.headers.location).toBe(`${TEMPLATES}/${template.body.id}`);

    const sent = await api.post<EmailSendAcceptedDto>(SEND, {
      patientId: patient.id,
      templateId: template.body.id,
      templateVariables: { when: 'Monday <09:30>' },
    });
    expect(sent.status).toBe(202);
    expect(sent.body).toEqual({ messageId: expect.any(String), status: 'queued' });
    expect(sent.headers.location).toBe(`${MESSAGES}/${sent.body.messageId}`);

    const message = await settled(suite.app, suite.tenant.testKey, sent.body.messageId);
    expect(message).toMatchObject({
      status: 'sent',
      transport: 'smtp',
      to: 'ada@example.test',
      patientId: patient.id,
      templateId: template.body.id,
      attempts: 1,
      lastError: null,
      smtpMessageId: expect.stringMatching(/^TEST\d+$/),
    });
    const got = receiver.byMessageId(sent.body.messageId);
    expect(got).toHaveLength(1);
    expect(got[0].to).toEqual(['ada@example.test']);
    expect(got[0].from).toBe('clinic@acme.test');
    expect(got[0].headers.from).toBe('Acme Clinic <clinic@acme.test>');
    expect(got[0].headers.subject).toBe('Hello Ada <b>');
    expect(got[0].html).toBe('<p>Hi Ada &lt;b&gt; Lovelace &amp; Co from Acme &quot;Clinic&quot;, Monday &lt;09:30&gt;</p>');
    expect(got[0].text).toBe('Hi Ada <b> Lovelace & Co from Acme "Clinic", Monday <09:30>');
    expect(message.subject).toBe('Hello Ada <b>');
    // Nothing more arrives later (no retry of a message that was sent).
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.byMessageId(sent.body.messageId)).toHaveLength(1);

    const events = await api.get<EventPageOf<{ id: string }>>(`/api/v1/events?type=email.sent`);
    expect(events.body.events.map((e) => e.data.id)).toContain(sent.body.messageId);
  });

  it("sends every message of a burst after the pool sat idle past the server's idle close, each once and at the first try", async () => {
    const api = suite.api();
    const burst = async (label: string): Promise<string[]> => {
      const ids: string[] = [];
      for (let i = 0; i < 48; i++) {
        const res = await api.post<EmailSendAcceptedDto>(SEND, {
          to: `burst${i}@example.test`,
          subject: `${label} ${i}`,
          textContent: 'x',
        });
        expect(res.status).toBe(202);
        ids.push(res.body.messageId);
      }
      return ids;
    };
    const allSent = (ids: string[]): Promise<void> =>
      eventually(async () => {
        const rows = await suite.app
          .get(DataSource)
          .query<{ status: string; attempts: number }[]>(`SELECT status, attempts FROM email_messages WHERE id = ANY($1::uuid[])`, [ids]);
        expect(rows.filter((r) => r.status !== 'sent' || r.attempts !== 1)).toEqual([]);
        expect(rows).toHaveLength(ids.length);
      }, 20_000);

    const first = await burst('Before');
    await allSent(first);
    const connectionsBefore = receiver.connections;
    // Idle past the server's close: every pooled connection is gone by now.
    await new Promise((r) => setTimeout(r, IDLE_CLOSE_MS * 2.5));
    const second = await burst('After');
    await allSent(second);
    expect(receiver.connections).toBeGreaterThan(connectionsBefore);
    for (const id of [...first, ...second]) expect({ id, copies: receiver.byMessageId(id).length }).toEqual({ id, copies: 1 });
  });

  it('sends a one-off message to a bare address, and lists it by status', async () => {
    const api = suite.api();
    const sent = await api.post<EmailSendAcceptedDto>(SEND, { to: 'someone@example.test', subject: 'Plain', textContent: 'Just text' });
    expect(sent.status).toBe(202);
    const message = await settled(suite.app, suite.tenant.testKey, sent.body.messageId);
    expect(message).toMatchObject({ status: 'sent', patientId: null, templateId: null, textContent: 'Just text', htmlContent: null });
    expect(receiver.byMessageId(sent.body.messageId)[0].text).toBe('Just text');

    const list = await api.get<EmailMessageListDto>(`${MESSAGES}?status=sent&limit=100`);
    expect(list.status).toBe(200);
    expect(list.body.messages.map((m) => m.id)).toContain(sent.body.messageId);
    expect(list.body.messages.every((m) => m.status === 'sent')).toBe(true);
    expect(list.headers['cache-control']).toBe('no-store');
  });

  it('retries a message the server refuses with 4xx, then records it sent', async () => {
    let refusals = 0;
    receiver.answer = (email) =>
      email.headers.subject === 'Flaky' && refusals++ < 2 ? { accept: false, code: 451, message: 'Try again later' } : { accept: true };
    const sent = await suite.api().post<EmailSendAcceptedDto>(SEND, { to: 'flaky@example.test', subject: 'Flaky', textContent: 'x' });
    const message = await settled(suite.app, suite.tenant.testKey, sent.body.messageId);
    expect(message).toMatchObject({ status: 'sent', attempts: 3 });
    // Two refused (and discarded by a real relay) plus the accepted one.
    expect(receiver.byMessageId(sent.body.messageId)).toHaveLength(3);
  });

  it('ends failed with the error recorded when every try fails, and emits email.failed', async () => {
    receiver.answer = (email) =>
      email.headers.subject === 'Doomed' ? { accept: false, code: 452, message: 'Mailbox full' } : { accept: true };
    const api = suite.api();
    const sent = await api.post<EmailSendAcceptedDto>(SEND, { to: 'full@example.test', subject: 'Doomed', textContent: 'x' });
    const message = await settled(suite.app, suite.tenant.testKey, sent.body.messageId);
    expect(message).toMatchObject({ status: 'failed', attempts: 3, lastError: expect.stringContaining('Mailbox full') });
    const events = await api.get<EventPageOf<{ id: string }>>(`/api/v1/events?type=email.failed`);
    expect(events.body.events.map((e) => e.data.id)).toContain(sent.body.messageId);
  });

  it('fails at once, without retrying, when the server refuses with 5xx', async () => {
    receiver.answer = (email) =>
      email.headers.subject === 'Refused' ? { accept: false, code: 554, message: 'Rejected' } : { accept: true };
    const sent = await suite.api().post<EmailSendAcceptedDto>(SEND, { to: 'no@example.test', subject: 'Refused', textContent: 'x' });
    const message = await settled(suite.app, suite.tenant.testKey, sent.body.messageId);
    expect(message).toMatchObject({ status: 'failed', attempts: 1, lastError: expect.stringContaining('Rejected') });
  });

  it('retries while the SMTP server is down, then fails with the connection error recorded', async () => {
    const down = new SmtpReceiver();
    await down.start();
    const port = down.port;
    await down.stop(); // nothing listens on this port now
    const other = await startApp({
      ...NO_RATE_LIMITS,
      SMTP_URL: `smtp://127.0.0.1:${port}`,
      TEST_SMTP_URL: `smtp://127.0.0.1:${port}`,
      EMAIL_MAX_ATTEMPTS: '3',
      EMAIL_RETRY_BASE_MS: '50',
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}:email-down`,
    });
    try {
      const otherTenant = await createTenant(other);
      const sent = await client(other, otherTenant.testKey).post<EmailSendAcceptedDto>(SEND, {
        to: 'x@example.test',
        subject: 'Down',
        textContent: 'x',
      });
      const message = await settled(other, otherTenant.testKey, sent.body.messageId);
      expect(message).toMatchObject({ status: 'failed', attempts: 3, lastError: expect.stringMatching(/ECONNREFUSED|connect/i) });
    } finally {
      await other.close();
    }
  });

  it('without SMTP_URL, marks live messages sent through the log transport and captures test-mode ones', async () => {
    const logged = await startApp({ ...NO_RATE_LIMITS, REDIS_PREFIX: `${process.env.REDIS_PREFIX}:email-log` });
    try {
      const t = await createTenant(logged);
      for (const [key, transport] of [
        [t.liveKey, 'log'],
        [t.testKey, 'test'],
      ]) {
        const sent = await client(logged, key).post<EmailSendAcceptedDto>(SEND, {
          to: 'log@example.test',
          subject: 'Logged',
          textContent: 'x',
        });
        expect(sent.status).toBe(202);
        const message = await settled(logged, key, sent.body.messageId);
        expect(message).toMatchObject({ status: 'sent', transport, attempts: 1, kind: 'send', textBody: 'x' });
      }
    } finally {
      await logged.close();
    }
  });

  it('queues a message written in a rolled-back transaction never, and one in a committed transaction once', async () => {
    const service = suite.app.get(EmailMessagesService);
    const patient = await createPatient(suite.app, suite.tenant.testKey, { email: 'tx@example.test' });
    const template = await suite.api().post<EmailTemplateDto>(TEMPLATES, { name: 'T', subject: 'Tx', textContent: 'x' });
    const auth = { tenantId: suite.tenant.id, mode: 'test' } as AuthContext;
    const db = suite.app.get(DataSource);
    let rolledBack = '';
    await db
      .transaction(async (tx) => {
        const outcome = await service.queue(auth, { kind: 'reminder', patientId: patient.id, templateId: template.body.id }, tx);
        expect(outcome.status).toBe('queued');
        if (outcome.status === 'queued') rolledBack = outcome.messageId;
        throw new Error('roll back');
      })
      .catch(() => undefined);
    const committed = await db.transaction(async (tx) => {
      const input = {
        kind: 'sequence' as const,
        patientId: patient.id,
        templateId: template.body.id,
        enrollmentId: '0193a5a8-0000-7000-8000-000000000001',
        step: 1,
      };
      const first = await service.queue(auth, input, tx);
      expect(first.status).toBe('queued');
      // The same enrolment step again is the same message.
      expect(await service.queue(auth, input, tx)).toEqual(first);
      return first.status === 'queued' ? first.messageId : '';
    });
    const message = await settled(suite.app, suite.tenant.testKey, committed);
    expect(message).toMatchObject({ status: 'sent', enrollmentId: '0193a5a8-0000-7000-8000-000000000001', step: 1 });
    expect(receiver.byMessageId(committed)).toHaveLength(1);
    expect((await suite.api().get(`${MESSAGES}/${rolledBack}`)).status).toBe(404);
    expect(receiver.byMessageId(rolledBack)).toHaveLength(0);
  });

  it('the job outbox relay adds the job of a committed message whose own process never did, which then sends it once', async () => {
    const db = suite.app.get(DataSource);
    // As a process that died right after its COMMIT leaves them: the message and its recorded job.
    const [{ id }] = await db.query<{ id: string }[]>(
      `INSERT INTO email_messages (id, tenant_id, mode, to_address, subject, text_body, status, attempts, next_attempt_at, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, 'test', 'lost@example.test', 'Lost job', 'x', 'queued', 0, $2, $2, $2)
       RETURNING id`,
      [suite.tenant.id, clock.now()],
    );
    await db.query(
      `INSERT INTO job_outbox (id, prefix, name, job_id, payload, options, run_at, available_at)
       VALUES (gen_random_uuid(), $1, 'email-send', $3::jsonb->>'jobId', $2, $3, NULL, now() - interval '1 second')`,
      [`${process.env.REDIS_PREFIX}:email-sending`, { messageId: id, tenantId: suite.tenant.id, mode: 'test' }, { jobId: id }],
    );
    const relay = suite.app.get(JobOutboxRelay);
    await eventually(async () => expect(receiver.byMessageId(id)).toHaveLength(1), 20_000);
    const message = await settled(suite.app, suite.tenant.testKey, id);
    expect(message).toMatchObject({ status: 'sent', attempts: 1 });
    // Added once: the finished job's row is gone, and another pass adds nothing.
    await eventually(async () => expect(await db.query(`SELECT 1 FROM job_outbox WHERE payload->>'messageId' = $1`, [id])).toHaveLength(0));
    expect(await relay.runOnce()).toBe(0);
    expect(receiver.byMessageId(id)).toHaveLength(1);
  });

  it('sends again, with the same Message-ID, a message left sending by a worker that died before recording the answer', async () => {
    const db = suite.app.get(DataSource);
    const [{ id }] = await db.query<{ id: string }[]>(
      `INSERT INTO email_messages (id, tenant_id, mode, to_address, subject, text_body, status, attempts, handed_over_at,
                                   next_attempt_at, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, 'test', 'orphan@example.test', 'Orphaned', 'x', 'sending', 1, $2::timestamptz - interval '2 minutes',
               $2::timestamptz - interval '2 minutes', $2, $2)
       RETURNING id`,
      [suite.tenant.id, clock.now()],
    );
    // Its job runs again, as BullMQ re-runs the stalled job of a worker that died.
    await db.query(
      `INSERT INTO job_outbox (id, prefix, name, job_id, payload, options, run_at, available_at)
       VALUES (gen_random_uuid(), $1, 'email-send', $3::jsonb->>'jobId', $2, $3, NULL, now() - interval '1 second')`,
      [`${process.env.REDIS_PREFIX}:email-sending`, { messageId: id, tenantId: suite.tenant.id, mode: 'test' }, { jobId: `${id}_rerun` }],
    );
    await eventually(async () => expect(receiver.byMessageId(id)).toHaveLength(1), 20_000);
    const message = await settled(suite.app, suite.tenant.testKey, id);
    expect(message).toMatchObject({ status: 'sent', attempts: 2, lastError: null, smtpMessageId: expect.stringMatching(/^TEST\d+$/) });
    expect(receiver.byMessageId(id)).toHaveLength(1);
  });
});
