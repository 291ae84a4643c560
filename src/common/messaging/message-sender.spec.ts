import type { Job } from 'bullmq';
import type { EntityManager } from 'typeorm';
import { JobFailure } from '../queue/job-handler';
import type { MessageSendPayload } from '../queue/queues';
import type { Transactions } from '../../database/transactions';
import { MessageChannel, MessageSender } from './message-sender';
import { MessageTransport, TransportError } from './message-transport';
import type { OutgoingMessageEntity } from './outgoing-message.entity';

type Row = OutgoingMessageEntity & { to: string };

/** A channel over one in-memory row: what the sender moves, and in which order. */
function channel(relay?: MessageTransport<Row>, suppressed: string | null = null) {
  const row = { id: 'm1', status: 'queued', lastError: null, attempts: 0, patientId: 'p1', to: 'x' } as unknown as Row;
  const calls: string[] = [];
  // markSent, markFailed and markSuppressed all take (scope, id, transport | error | reason, …).
  const settle = (status: Row['status']) => (_scope: unknown, _id: string, detail: string) => {
    if (!['queued', 'sending'].includes(row.status)) return Promise.resolve(null);
    calls.push(`${status}:${detail}`);
    row.status = status;
    return Promise.resolve(row);
  };
  const messages = {
    findById: () => Promise.resolve(row),
    markSent: settle('sent'),
    markFailed: settle('failed'),
    markSuppressed: settle('suppressed'),
    markRetry: (_s: unknown, _id: string, error: string, nextAttemptAt: Date) => {
      calls.push(`retry:${error}:${nextAttemptAt.getTime() > 0}`);
      row.status = 'queued';
      return Promise.resolve();
    },
  };
  const c: MessageChannel<Row> = {
    name: 'email',
    messages: messages as never,
    relays: relay ? { live: relay } : {},
    log: { name: 'log', send: () => Promise.resolve(null) },
    claim: () => {
      calls.push('claim');
      const from = row.status === 'sending' ? 'sending' : 'queued';
      row.status = 'sending';
      return Promise.resolve({ row, from });
    },
    suppression: () => {
      calls.push('consent');
      return Promise.resolve(suppressed);
    },
    retryDelayMs: () => 1000,
    recordEvent: (_s, event) => {
      calls.push(`event:${event}`);
      return Promise.resolve();
    },
  };
  return { c, row, calls };
}

const transactions = { run: <T>(work: (tx: EntityManager) => Promise<T>) => work({} as EntityManager) } as unknown as Transactions;
const job = (mode: 'live' | 'test', attemptsMade = 0) =>
  ({
    data: { messageId: 'm1', tenantId: 't1', mode },
    attemptsMade,
    opts: { attempts: 3 },
    updateData: () => Promise.resolve(),
  }) as unknown as Job<MessageSendPayload>;

describe('MessageSender', () => {
  const sender = new MessageSender(transactions);

  it('claims, checks consent after the claim, then sends through the relay and records it sent', async () => {
    const { c, calls } = channel({ name: 'smtp', send: () => Promise.resolve('relay-id') });
    await sender.run(c, job('live'));
    expect(calls).toEqual(['claim', 'consent', 'sent:smtp', 'event:sent']);
  });

  it('suppresses a message whose recipient opted out after the claim, sending nothing', async () => {
    const send = jest.fn();
    const { c, calls } = channel({ name: 'smtp', send }, 'opted out');
    await sender.run(c, job('live'));
    expect(calls).toEqual(['claim', 'consent', 'suppressed:opted out']);
    expect(send).not.toHaveBeenCalled();
  });

  it('captures test-mode messages and logs live ones without a relay', async () => {
    const test = channel({ name: 'smtp', send: jest.fn() });
    await sender.run(test.c, job('test'));
    expect(test.calls).toContain('sent:test');
    const log = channel();
    await sender.run(log.c, job('live'));
    expect(log.calls).toContain('sent:log');
  });

  it('puts a retryable failure back to queued with its next attempt, and fails a permanent one', async () => {
    const retry = channel({ name: 'smtp', send: () => Promise.reject(new TransportError('451 later', false, 'SMTP 451')) });
    await expect(sender.run(retry.c, job('live'))).rejects.toThrow(new JobFailure('SMTP 451: retrying'));
    expect(retry.calls).toEqual(['claim', 'consent', 'retry:451 later:true']);
    const refused = channel({ name: 'smtp', send: () => Promise.reject(new TransportError('550 no', true, 'SMTP 550')) });
    await expect(sender.run(refused.c, job('live'))).rejects.toThrow('SMTP 550: the message failed');
    expect(refused.calls).toEqual(['claim', 'consent', 'failed:550 no', 'event:failed']);
  });

  it('ends a message failed when its job is given up, keeping its last error', async () => {
    const { c, row, calls } = channel();
    row.lastError = 'SMTP 451';
    await sender.giveUp(c, { messageId: 'm1', tenantId: 't1', mode: 'live' }, 'attempts used up');
    expect(calls).toEqual(['failed:SMTP 451', 'event:failed']);
  });
});
