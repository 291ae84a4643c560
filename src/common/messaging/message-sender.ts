import type { Job } from 'bullmq';
import type { MessageSendPayload } from '../queue/queues';

/** Whether a failed try ends the message: the transport refused it for good, or it was the job's last attempt. */
export function isLastTry(job: Job, permanent: boolean): boolean {
  return permanent || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
}

/**
 * The error a message ends `failed` with when BullMQ gives up on its job (attempts used up, or it stalled
 * too often): a queued row keeps its last transport error; a sending one was stopped mid-try, which the
 * reason says. Null for a row that is settled or gone: nothing to record.
 */
export function errorOnGivingUp(row: { status: string; lastError: string | null } | null, reason: string): string | null {
  if (row?.status === 'queued') return row.lastError ?? reason;
  if (row?.status === 'sending') return reason;
  return null;
}

/**
 * Records a message its relay accepted. When the record fails (PostgreSQL away), the job's data in Redis keeps
 * the acceptance (`acceptedAs`) before the error goes on to retry the job, so that the next try records it
 * rather than sending the message again.
 */
export async function recordAcceptance(
  job: Job<MessageSendPayload>,
  relayId: string | null,
  record: () => Promise<unknown>,
): Promise<void> {
  try {
    await record();
  } catch (err) {
    await job.updateData({ ...job.data, acceptedAs: relayId ?? '' }).catch(() => undefined);
    throw err;
  }
}
