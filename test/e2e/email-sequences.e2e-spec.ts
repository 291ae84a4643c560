import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { QueueName } from '../../src/common/queue/queues';
import { clock } from '../../src/common/time/clock';
import { client, createKey, createTenant, dataSource, TestTenant, type Problem } from '../helpers/app';
import { useApp } from '../helpers/use-app';
import { eventually } from '../helpers/eventually';
import { createPatient, NO_RATE_LIMITS } from '../helpers/patients';
import { SmtpReceiver } from '../helpers/smtp-receiver';
import type { EmailMessageListDto } from '../../src/modules/email/dto/email-message.dto';
import type { EmailTemplateDto } from '../../src/modules/email/dto/email-template.dto';
import type {
  EnrollmentDto,
  EnrollmentListDto,
  EnrollResultDto,
  SequenceCreatedDto,
  SequenceDto,
  SequenceListDto,
} from '../../src/modules/email/sequences/dto/sequence.dto';
import type { EventListDto } from '../../src/modules/events/dto/event.dto';

const SEQUENCES = '/api/v1/emails/sequences';
const TEMPLATES = '/api/v1/emails/templates';
const UNKNOWN_ID = '0193a5b2-7c1e-7d40-9a3e-2f0c1b4d5e6f';
/** EMAIL_SEQUENCE_MINUTE_MS: a step delay's "minute" lasts this long here. */
const MINUTE_MS = 100;

describe('Email sequences (real BullMQ workers, a real SMTP receiver)', () => {
  let receiver: SmtpReceiver;
  let acme: TestTenant;
  let globex: TestTenant;
  let templates: string[];

  beforeAll(async () => {
    receiver = await new SmtpReceiver().start();
  });
  const suite = useApp(() => ({
    ...NO_RATE_LIMITS,
    SMTP_URL: receiver.url,
    TEST_SMTP_URL: receiver.url,
    EMAIL_RETRY_BASE_MS: '50',
    EMAIL_SEQUENCE_MINUTE_MS: String(MINUTE_MS),
    // Its own queues: no other app of this run takes these jobs.
    REDIS_PREFIX: `${process.env.REDIS_PREFIX}:email-sequences`,
  }));
  afterAll(() => receiver.stop());
  beforeAll(async () => {
    acme = suite.tenant;
    globex = await createTenant(suite.app, 'Globex');
    templates = [];
    for (const n of [1, 2, 3]) templates.push(await createTemplate(acme.testKey, `Step ${n} for {{patient.firstName}}`));
  });

  async function createTemplate(key: string, subject: string): Promise<string> {
    const res = await client(suite.app, key).post<EmailTemplateDto>(TEMPLATES, {
      name: subject,
      subject,
      textContent: `${subject}: hello {{patient.firstName}}`,
    });
    expect([res.status, res.text]).toEqual([201, expect.any(String)]);
    return res.body.id;
  }

  async function createSequence(
    key: string,
    steps: { templateId: string; delayMinutes: number }[],
    status?: 'active',
  ): Promise<SequenceDto> {
    const api = client(suite.app, key);
    const res = await api.post<SequenceCreatedDto>(SEQUENCES, { name: 'Welcome', steps });
    expect([res.status, res.text]).toEqual([201, expect.any(String)]);
    if (!status) return res.body.sequence;
    const activated = await api.patch<SequenceDto>(`${SEQUENCES}/${res.body.sequence.id}`, { status });
    expect([activated.status, activated.text]).toEqual([200, expect.any(String)]);
    return activated.body;
  }

  const enroll = <T = EnrollResultDto>(key: string, id: string, patientIds: string[]) =>
    client(suite.app, key).post<T>(`${SEQUENCES}/${id}/enroll`, { patientIds });
  const enrollments = async (key: string, id: string): Promise<EnrollmentDto[]> =>
    (await client(suite.app, key).get<EnrollmentListDto>(`${SEQUENCES}/${id}/enrollments`)).body.enrollments;
  const receivedBy = (email: string) => receiver.received.filter((m) => m.to.includes(email));

  it('creates a draft with "Sequence created", reads, lists and renames it', async () => {
    const api = client(suite.app, acme.testKey);
    const res = await api.post<SequenceCreatedDto>(SEQUENCES, {
      name: ' Welcome ',
      description: 'Three emails',
      steps: [{ templateId: templates[0], delayMinutes: 0 }],
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      message: 'Sequence created',
      sequence: {
        id: expect.any(String),
        name: 'Welcome',
        description: 'Three emails',
        status: 'draft',
        steps: [{ templateId: templates[0], delayMinutes: 0 }],
        enrollmentCount: 0,
        createdAt: expect.stringMatching(/Z$/),
        updatedAt: expect.stringMatching(/Z$/),
      },
    });
    const id = res.body.sequence.id;
    expect(res.headers.location).toBe(`${SEQUENCES}/${id}`);
    expect((await api.get<SequenceDto>(`${SEQUENCES}/${id}`)).body).toEqual(res.body.sequence);
    expect((await api.get<SequenceListDto>(SEQUENCES)).body.sequences.map((s) => s.id)).toContain(id);
    expect((await api.get<SequenceListDto>(`${SEQUENCES}?status=active`)).body.sequences.map((s) => s.id)).not.toContain(id);
    const renamed = await api.patch(`${SEQUENCES}/${id}`, { name: 'Welcome 2', description: null });
    expect(renamed.body).toMatchObject({ name: 'Welcome 2', description: null, status: 'draft' });
  });

  it('follows draft → active ⇄ paused, any → archived (final), and changes steps only while draft or paused', async () => {
    const api = client(suite.app, acme.testKey);
    const empty = (await api.post<SequenceCreatedDto>(SEQUENCES, { name: 'Empty' })).body.sequence;
    const noSteps = await api.patch<Problem>(`${SEQUENCES}/${empty.id}`, { status: 'active' });
    expect([noSteps.status, noSteps.body.errors?.[0]?.field]).toEqual([400, 'steps']);

    const seq = await createSequence(acme.testKey, [{ templateId: templates[0], delayMinutes: 60 }]);
    const patch = <T = SequenceDto>(body: Record<string, unknown>) => api.patch<T>(`${SEQUENCES}/${seq.id}`, body);
    const expectConflict = async (body: Record<string, unknown>, field: string) => {
      const res = await patch<Problem>(body);
      expect([JSON.stringify(body), res.status, res.body.code, res.body.errors?.[0]?.field]).toEqual([
        JSON.stringify(body),
        409,
        'invalid_transition',
        field,
      ]);
    };
    await expectConflict({ status: 'paused' }, 'status'); // draft → paused
    expect((await patch({ steps: [{ templateId: templates[1], delayMinutes: 5 }] })).status).toBe(200); // draft: editable
    expect((await patch({ status: 'active' })).body.status).toBe('active');
    await expectConflict({ steps: [{ templateId: templates[0], delayMinutes: 5 }] }, 'steps'); // active: not editable
    await expectConflict({ status: 'draft' }, 'status');
    expect((await patch({ status: 'active' })).status).toBe(200); // staying is no transition
    const paused = await patch({ status: 'paused', steps: [{ templateId: templates[2], delayMinutes: 1 }] }); // pause and edit at once
    expect(paused.body).toMatchObject({ status: 'paused', steps: [{ templateId: templates[2], delayMinutes: 1 }] });
    expect((await patch({ steps: [{ templateId: templates[0], delayMinutes: 2 }] })).status).toBe(200);
    expect((await patch({ status: 'active' })).body.status).toBe('active');
    expect((await patch({ status: 'archived' })).body.status).toBe('archived');
    for (const status of ['draft', 'active', 'paused']) await expectConflict({ status }, 'status');
    await expectConflict({ steps: [] }, 'steps');
    expect((await api.get(`${SEQUENCES}/${seq.id}`)).body).toMatchObject({
      status: 'archived',
      steps: [{ templateId: templates[0], delayMinutes: 2 }],
    });
  });

  it('enrols only into an active sequence (409 sequence_not_active)', async () => {
    const patient = await createPatient(suite.app, acme.testKey, { email: 'draft@example.test' });
    const seq = await createSequence(acme.testKey, [{ templateId: templates[0], delayMinutes: 0 }]);
    const res = await enroll<Problem & { sequenceStatus: string }>(acme.testKey, seq.id, [patient.id]);
    expect([res.status, res.body.code, res.body.sequenceStatus]).toEqual([409, 'sequence_not_active', 'draft']);
    expect((await client(suite.app, acme.testKey).get<SequenceDto>(`${SEQUENCES}/${seq.id}`)).body.enrollmentCount).toBe(0);
  });

  it('delivers every step of a 0-minute sequence in order, once, and completes the enrolment', async () => {
    const ada = await createPatient(suite.app, acme.testKey, { firstName: 'Ada', email: 'ada.seq@example.test' });
    const seq = await createSequence(
      acme.testKey,
      templates.map((templateId) => ({ templateId, delayMinutes: 0 })),
      'active',
    );
    const res = await enroll(acme.testKey, seq.id, [ada.id]);
    expect([res.status, res.body]).toEqual([202, { enrolled: 1, alreadyEnrolled: 0, skipped: 0 }]);
    expect(res.headers.location).toBe(`${SEQUENCES}/${seq.id}/enrollments`);

    const [done] = await eventually(async () => {
      const list = await enrollments(acme.testKey, seq.id);
      expect(list).toEqual([expect.objectContaining({ status: 'completed' })]);
      return list;
    }, 20_000);
    expect(done).toMatchObject({ patientId: ada.id, currentStep: 3, nextStepAt: null, endedAt: expect.any(String), endedReason: null });
    await eventually(async () => expect(receivedBy('ada.seq@example.test')).toHaveLength(3), 20_000);
    expect(receivedBy('ada.seq@example.test').map((m) => m.headers.subject)).toEqual([
      'Step 1 for Ada',
      'Step 2 for Ada',
      'Step 3 for Ada',
    ]);

    // The receiver has the last message a moment before its row says `sent`.
    await eventually(async () => {
      const messages = (await client(suite.app, acme.testKey).get<EmailMessageListDto>(`/api/v1/emails/messages?sequenceId=${seq.id}`)).body
        .messages;
      expect(messages.map((m) => [m.step, m.enrollmentId, m.status]).sort()).toEqual([
        [0, done.id, 'sent'],
        [1, done.id, 'sent'],
        [2, done.id, 'sent'],
      ]);
    });
    const events = (await client(suite.app, acme.testKey).get<EventListDto>('/api/v1/events?limit=100')).body.events.filter(
      (e) => e.data?.id === done.id,
    );
    expect(events.map((e) => e.type).sort()).toEqual(['sequence.enrollment.completed', 'sequence.enrollment.created']);
    // Nothing more arrives later (no step ran twice).
    await new Promise((r) => setTimeout(r, 500));
    expect(receivedBy('ada.seq@example.test')).toHaveLength(3);
  });

  it('skips patients without email or opted out, and makes re-enrolment a no-op; the count stays exact', async () => {
    const seq = await createSequence(acme.testKey, [{ templateId: templates[0], delayMinutes: 600 }], 'active');
    const withEmail = await createPatient(suite.app, acme.testKey, { email: 'count1@example.test' });
    const other = await createPatient(suite.app, acme.testKey, { email: 'count2@example.test' });
    const noEmail = await createPatient(suite.app, acme.testKey);
    const optedOut = await createPatient(suite.app, acme.testKey, { email: 'out@example.test', emailOptOut: true });
    const first = await enroll(acme.testKey, seq.id, [withEmail.id, noEmail.id, optedOut.id, withEmail.id]);
    expect(first.body).toEqual({ enrolled: 1, alreadyEnrolled: 0, skipped: 2 });
    expect((await enroll(acme.testKey, seq.id, [withEmail.id])).body).toEqual({ enrolled: 0, alreadyEnrolled: 1, skipped: 0 });
    // Concurrent enrolments of overlapping patients: each patient once, the count exact.
    const answers = await Promise.all(Array.from({ length: 8 }, () => enroll(acme.testKey, seq.id, [withEmail.id, other.id])));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(202));
    expect(answers.reduce((sum, a) => sum + a.body.enrolled, 0)).toBe(1);
    expect((await client(suite.app, acme.testKey).get<SequenceDto>(`${SEQUENCES}/${seq.id}`)).body.enrollmentCount).toBe(2);
    const list = await enrollments(acme.testKey, seq.id);
    expect(list.map((e) => e.patientId).sort()).toEqual([withEmail.id, other.id].sort());
    expect(list[0]).toMatchObject({ status: 'active', currentStep: 0, nextStepAt: expect.any(String), lastMessageId: null });
  });

  it('holds steps that fall due while paused and sends them on resume', async () => {
    const grace = await createPatient(suite.app, acme.testKey, { firstName: 'Grace', email: 'grace.pause@example.test' });
    // Step 2 falls due 5 "minutes" (500 ms here) after step 1.
    const seq = await createSequence(
      acme.testKey,
      [
        { templateId: templates[0], delayMinutes: 0 },
        { templateId: templates[1], delayMinutes: 5 },
      ],
      'active',
    );
    await enroll(acme.testKey, seq.id, [grace.id]);
    await eventually(async () => expect(receivedBy('grace.pause@example.test')).toHaveLength(1), 20_000);
    expect((await client(suite.app, acme.testKey).patch<SequenceDto>(`${SEQUENCES}/${seq.id}`, { status: 'paused' })).body.status).toBe(
      'paused',
    );
    await new Promise((r) => setTimeout(r, 5 * MINUTE_MS + 1_500));
    expect(receivedBy('grace.pause@example.test')).toHaveLength(1);
    const [held] = await enrollments(acme.testKey, seq.id);
    expect(held).toMatchObject({ status: 'active', currentStep: 1 });
    expect(Date.parse(held.nextStepAt!)).toBeLessThan(clock.nowMs());

    expect((await client(suite.app, acme.testKey).patch<SequenceDto>(`${SEQUENCES}/${seq.id}`, { status: 'active' })).body.status).toBe(
      'active',
    );
    await eventually(async () => expect(receivedBy('grace.pause@example.test')).toHaveLength(2), 20_000);
    expect(receivedBy('grace.pause@example.test').map((m) => m.headers.subject)).toEqual(['Step 1 for Grace', 'Step 2 for Grace']);
    await eventually(async () =>
      expect((await enrollments(acme.testKey, seq.id))[0]).toMatchObject({ status: 'completed', currentStep: 2 }),
    );
  });

  it('cancels pending steps on archive: the enrolment ends cancelled and its delayed job is gone', async () => {
    const linus = await createPatient(suite.app, acme.testKey, { firstName: 'Linus', email: 'linus.archive@example.test' });
    const seq = await createSequence(
      acme.testKey,
      [
        { templateId: templates[0], delayMinutes: 0 },
        { templateId: templates[1], delayMinutes: 10 },
      ],
      'active',
    );
    await enroll(acme.testKey, seq.id, [linus.id]);
    await eventually(async () => expect(receivedBy('linus.archive@example.test')).toHaveLength(1), 20_000);
    const [enrolment] = await eventually(async () => {
      const list = await enrollments(acme.testKey, seq.id);
      expect(list[0].currentStep).toBe(1);
      return list;
    });
    const queue = suite.app.get<Queue>(getQueueToken(QueueName.EmailSequences), { strict: false });
    expect(await (await queue.getJob(`${enrolment.id}_1`))?.isDelayed()).toBe(true);

    expect((await client(suite.app, acme.testKey).patch<SequenceDto>(`${SEQUENCES}/${seq.id}`, { status: 'archived' })).body.status).toBe(
      'archived',
    );
    expect(await queue.getJob(`${enrolment.id}_1`)).toBeUndefined();
    expect((await enrollments(acme.testKey, seq.id))[0]).toMatchObject({
      status: 'cancelled',
      endedReason: 'the sequence was archived',
      nextStepAt: null,
    });
    await new Promise((r) => setTimeout(r, 10 * MINUTE_MS + 1_000));
    expect(receivedBy('linus.archive@example.test')).toHaveLength(1);
  });

  it("suppresses an opted-out patient's next step", async () => {
    const api = client(suite.app, acme.testKey);
    const mary = await createPatient(suite.app, acme.testKey, { firstName: 'Mary', email: 'mary.optout@example.test' });
    const seq = await createSequence(
      acme.testKey,
      [
        { templateId: templates[0], delayMinutes: 0 },
        { templateId: templates[1], delayMinutes: 10 },
      ],
      'active',
    );
    await enroll(acme.testKey, seq.id, [mary.id]);
    await eventually(async () => expect(receivedBy('mary.optout@example.test')).toHaveLength(1), 20_000);
    expect((await api.put(`/api/v1/patients/${mary.id}`, { emailOptOut: true })).status).toBe(200);
    const messages = await eventually(async () => {
      const list = (await api.get<EmailMessageListDto>(`/api/v1/emails/messages?sequenceId=${seq.id}`)).body.messages;
      expect(list.map((m) => [m.step, m.status]).sort()).toEqual([
        [0, 'sent'],
        [1, 'suppressed'],
      ]);
      return list;
    }, 20_000);
    expect(messages).toHaveLength(2);
    expect(receivedBy('mary.optout@example.test')).toHaveLength(1);
    expect((await enrollments(acme.testKey, seq.id))[0]).toMatchObject({ status: 'completed', currentStep: 2 });
  });

  it('refuses bad input with a 4xx naming the field', async () => {
    const api = client(suite.app, acme.testKey);
    const seq = await createSequence(acme.testKey, [{ templateId: templates[0], delayMinutes: 600 }], 'active');
    const patient = await createPatient(suite.app, acme.testKey, { email: 'bad-input@example.test' });
    const creates: [string, Record<string, unknown>, string][] = [
      ['no name', { steps: [] }, 'name'],
      ['NUL in name', { name: 'a\u0000b' }, 'name'],
      ['unknown template', { name: 'x', steps: [{ templateId: UNKNOWN_ID, delayMinutes: 0 }] }, 'steps.0.templateId'],
      ['malformed template id', { name: 'x', steps: [{ templateId: 'nope', delayMinutes: 0 }] }, 'steps.0.templateId'],
      ['negative delay', { name: 'x', steps: [{ templateId: templates[0], delayMinutes: -1 }] }, 'steps.0.delayMinutes'],
      ['fractional delay', { name: 'x', steps: [{ templateId: templates[0], delayMinutes: 1.5 }] }, 'steps.0.delayMinutes'],
      ['unknown step member', { name: 'x', steps: [{ templateId: templates[0], delayMinutes: 0, subject: 'x' }] }, 'steps.0.subject'],
      ['51 steps', { name: 'x', steps: Array(51).fill({ templateId: templates[0], delayMinutes: 0 }) }, 'steps'],
      ['steps not an array', { name: 'x', steps: 'all' }, 'steps'],
    ];
    for (const [what, body, field] of creates) {
      const res = await api.post<Problem>(SEQUENCES, body);
      expect([what, res.status, res.body.errors?.map((e: { field: string }) => e.field)]).toEqual([what, 400, [field]]);
    }
    expect((await api.patch<Problem>(`${SEQUENCES}/${seq.id}`, { status: 'running' })).body.errors?.[0]?.field).toBe('status');

    const ids = (n: number) => Array.from({ length: n }, () => patient.id);
    const enrolls: [string, unknown, string][] = [
      ['1,001 ids', ids(1001), 'patientIds'],
      ['no ids', [], 'patientIds'],
      ['a malformed id', ['nope'], 'patientIds'],
      ['an unknown id', [patient.id, UNKNOWN_ID], 'patientIds.1'],
      ['NUL', ['\u0000'], 'patientIds.0'],
    ];
    for (const [what, patientIds, field] of enrolls) {
      const res = await api.post<Problem>(`${SEQUENCES}/${seq.id}/enroll`, { patientIds });
      expect([what, res.status, res.body.errors?.[0]?.field]).toEqual([what, 400, field]);
    }
    expect((await api.post(`${SEQUENCES}/${seq.id}/enroll`, { patientIds: ids(1000) })).body).toEqual({
      enrolled: 1,
      alreadyEnrolled: 0,
      skipped: 0,
    });
    expect((await api.get(`${SEQUENCES}/${UNKNOWN_ID}`)).status).toBe(404);
    expect((await api.patch(`${SEQUENCES}/${UNKNOWN_ID}`, { name: 'x' })).status).toBe(404);
    expect((await api.post(`${SEQUENCES}/${UNKNOWN_ID}/enroll`, { patientIds: [patient.id] })).status).toBe(404);
    expect((await api.get(`${SEQUENCES}/${UNKNOWN_ID}/enrollments`)).status).toBe(404);
    expect((await api.get(`${SEQUENCES}/nope`)).status).toBe(404);
  });

  it("cannot see, change, enrol into or list another tenant's or mode's sequences, nor use their templates or patients", async () => {
    const seq = await createSequence(acme.testKey, [{ templateId: templates[0], delayMinutes: 600 }], 'active');
    const acmePatient = await createPatient(suite.app, acme.testKey, { email: 'iso@example.test' });
    expect((await enroll(acme.testKey, seq.id, [acmePatient.id])).body.enrolled).toBe(1);
    for (const key of [globex.testKey, globex.liveKey, acme.liveKey]) {
      const api = client(suite.app, key);
      const own = await createPatient(suite.app, key, { email: 'own@example.test' });
      expect((await api.get<SequenceListDto>(SEQUENCES)).body.sequences.map((s) => s.id)).not.toContain(seq.id);
      expect((await api.get(`${SEQUENCES}/${seq.id}`)).status).toBe(404);
      expect((await api.patch(`${SEQUENCES}/${seq.id}`, { status: 'paused' })).status).toBe(404);
      expect((await api.post(`${SEQUENCES}/${seq.id}/enroll`, { patientIds: [own.id] })).status).toBe(404);
      expect((await api.get(`${SEQUENCES}/${seq.id}/enrollments`)).status).toBe(404);
      // Acme's template in their own sequence, Acme's patient in their own sequence: named nothing.
      const theirs = await api.post<Problem>(SEQUENCES, { name: 'x', steps: [{ templateId: templates[0], delayMinutes: 0 }] });
      expect([theirs.status, theirs.body.errors?.[0]?.field]).toEqual([400, 'steps.0.templateId']);
      const template = await createTemplate(key, 'Theirs');
      const ownSeq = await createSequence(key, [{ templateId: template, delayMinutes: 600 }], 'active');
      const crossed = await api.post<Problem>(`${SEQUENCES}/${ownSeq.id}/enroll`, { patientIds: [acmePatient.id] });
      expect([crossed.status, crossed.body.errors?.[0]?.field]).toEqual([400, 'patientIds.0']);
    }
    expect((await client(suite.app, acme.testKey).get(`${SEQUENCES}/${seq.id}`)).body).toMatchObject({
      status: 'active',
      enrollmentCount: 1,
    });
  });

  it('enforces emails:read and emails:write', async () => {
    const seq = await createSequence(acme.testKey, [{ templateId: templates[0], delayMinutes: 600 }], 'active');
    const patient = await createPatient(suite.app, acme.testKey, { email: 'scopes@example.test' });
    const reader = client(suite.app, await createKey(suite.app, acme.testKey, { scopes: ['emails:read'] }));
    const writer = client(suite.app, await createKey(suite.app, acme.testKey, { scopes: ['emails:write'] }));
    const sms = client(suite.app, await createKey(suite.app, acme.testKey, { scopes: ['sms:read', 'sms:write'] }));
    for (const res of [
      await reader.get(SEQUENCES),
      await reader.get(`${SEQUENCES}/${seq.id}`),
      await reader.get(`${SEQUENCES}/${seq.id}/enrollments`),
    ]) {
      expect(res.status).toBe(200);
    }
    const writes = (api: typeof reader) => [
      () => api.post<Problem>(SEQUENCES, { name: 'x' }),
      () => api.patch<Problem>(`${SEQUENCES}/${seq.id}`, { name: 'x' }),
      () => api.post<Problem>(`${SEQUENCES}/${seq.id}/enroll`, { patientIds: [patient.id] }),
    ];
    for (const write of writes(reader)) expect((await write()).body.code).toBe('insufficient_scope');
    for (const read of [() => writer.get(SEQUENCES), () => writer.get(`${SEQUENCES}/${seq.id}/enrollments`)])
      expect((await read()).status).toBe(403);
    for (const call of [...writes(sms), () => sms.get(SEQUENCES)]) expect((await call()).status).toBe(403);
    expect((await writer.post(`${SEQUENCES}/${seq.id}/enroll`, { patientIds: [patient.id] })).status).toBe(202);
    expect(
      (
        await dataSource(suite.app).query<{ n: number }[]>(
          `SELECT count(*)::int AS n FROM email_sequence_enrollments WHERE sequence_id = $1`,
          [seq.id],
        )
      )[0].n,
    ).toBe(1);
  });
});
