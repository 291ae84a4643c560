import type { Job } from 'bullmq';

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
