import { checkJobHandlers } from './job-handlers.check';
import { JobName, QueueName, QUEUES, QueuePolicy } from './queues';

const policy = QUEUES[QueueName.PatientImports];
const handler = (job: string, name = 'ImportsProcessor.run') => ({ job: job as JobName, name });

describe('checkJobHandlers', () => {
  it('accepts exactly one handler per declared job', () => {
    const oneEach = Object.values(JobName).map((job) => handler(job, `H.${job}`));
    expect(() => checkJobHandlers(QUEUES, oneEach)).not.toThrow();
  });

  it('refuses a declared job without a handler, naming the job and its queue', () => {
    expect(() => checkJobHandlers(QUEUES, [])).toThrow(/job "patient-import" of queue "patient-imports" has no @OnJob handler/);
  });

  it('refuses two handlers for one job, naming both', () => {
    const both = [handler(JobName.PatientImport, 'A.run'), handler(JobName.PatientImport, 'B.run')];
    expect(() => checkJobHandlers(QUEUES, both)).toThrow(/job "patient-import" has 2 @OnJob handlers \(A\.run, B\.run\)/);
  });

  it('refuses a handler for a job that no queue declares', () => {
    const stray = [handler(JobName.PatientImport), handler('send-email', 'Mailer.send')];
    expect(() => checkJobHandlers(QUEUES, stray)).toThrow(/Mailer\.send handles job "send-email", which no queue declares/);
  });

  it('refuses a job declared by two queues', () => {
    const queues = { ...QUEUES, other: policy } as unknown as Record<QueueName, QueuePolicy>;
    expect(() => checkJobHandlers(queues, [handler(JobName.PatientImport)])).toThrow(/declared by 2 queues/);
  });

  it('refuses two failure handlers for one job', () => {
    const failed = [handler(JobName.PatientImport, 'A.failed'), handler(JobName.PatientImport, 'B.failed')];
    expect(() => checkJobHandlers(QUEUES, [handler(JobName.PatientImport)], failed)).toThrow(/2 @OnJobFailed handlers/);
  });

  it('lists every problem in one message', () => {
    const stray = [handler('a'), handler('b')];
    let message = '';
    try {
      checkJobHandlers(QUEUES, stray);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/no @OnJob handler.*"a", which no queue declares.*"b", which no queue declares/);
  });
});
