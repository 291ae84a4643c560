import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { client, createTenant, dataSource, startApp, TestTenant } from '../helpers/app';
import { eventually } from '../helpers/eventually';
import { NO_RATE_LIMITS } from '../helpers/patients';
import { PrivateRedis } from '../helpers/private-redis';
import { SmtpReceiver } from '../helpers/smtp-receiver';
import type { EmailSendAcceptedDto } from '../../src/modules/email/dto/send-email.dto';

/**
 * Redis coming back without its data (a restart without persistence): jobs it had accepted, and no worker had
 * run yet, are added again from the job outbox and run once.
 */
describe('Redis losing the jobs it accepted', () => {
  // Not useApp: the Redis of this suite is a private one, emptied by a restart.
  let redis: PrivateRedis;
  let receiver: SmtpReceiver;
  let api: NestFastifyApplication;
  let worker: NestFastifyApplication | undefined;
  let tenant: TestTenant;
  let env: Record<string, string>;

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    receiver = await new SmtpReceiver().start();
    env = {
      ...NO_RATE_LIMITS,
      REDIS_URL: redis.url,
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}:data-loss`,
      SMTP_URL: receiver.url,
      TEST_SMTP_URL: receiver.url,
    };
    // No workers yet: the jobs wait in Redis, as a backlog does.
    api = await startApp({ ...env, WORKERS: 'off' });
    tenant = await createTenant(api);
  }, 60_000);

  afterAll(async () => {
    await worker?.close();
    await api?.close();
    await receiver?.stop();
    await redis?.kill();
  });

  it('sends every email whose job Redis had accepted before it restarted empty, once', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await client(api, tenant.testKey).post<EmailSendAcceptedDto>('/api/v1/emails/send', {
        to: `backlog${i}@example.test`,
        subject: 'Backlog',
        textContent: 'x',
      });
      expect(res.status).toBe(202);
      ids.push(res.body.messageId);
    }
    const db = dataSource(api);
    const added = async (): Promise<number> =>
      Number(
        (await db.query<{ n: string }[]>(`SELECT count(*) AS n FROM job_outbox WHERE job_id = ANY($1) AND added_at IS NOT NULL`, [ids]))[0]
          .n,
      );
    // Redis has accepted every job.
    await eventually(async () => expect(await added()).toBe(20));

    await redis.kill();
    await redis.restart(); // no persistence: empty
    worker = await startApp(env);

    await eventually(async () => expect(ids.filter((id) => receiver.byMessageId(id).length === 0)).toEqual([]), 30_000);
    expect(ids.filter((id) => receiver.byMessageId(id).length > 1)).toEqual([]);
    // Finished jobs leave the outbox.
    await eventually(async () => {
      const [{ n }] = await db.query<{ n: string }[]>(`SELECT count(*) AS n FROM job_outbox WHERE job_id = ANY($1)`, [ids]);
      expect(Number(n)).toBe(0);
    });
  });
});
