import type { JobName, QueueName, QueuePolicy } from './queues';

/** A discovered `@OnJob` / `@OnJobFailed` method, named for messages (`Class.method`). */
export interface FoundHandler {
  job: JobName;
  name: string;
}

/**
 * Refuses to start workers unless every job name of every queue has exactly one `@OnJob` handler, no
 * handler serves a job that no queue declares, each job name belongs to one queue, and no job has two
 * `@OnJobFailed` handlers. Throws one message listing every problem.
 */
export function checkJobHandlers(
  queues: Record<QueueName, QueuePolicy>,
  handlers: readonly FoundHandler[],
  failedHandlers: readonly FoundHandler[] = [],
): void {
  const problems: string[] = [];
  const declared = new Map<JobName, QueueName[]>();
  for (const [queue, policy] of Object.entries(queues) as [QueueName, QueuePolicy][]) {
    for (const job of policy.jobs) declared.set(job, [...(declared.get(job) ?? []), queue]);
  }
  for (const [job, owners] of declared) {
    if (owners.length > 1) problems.push(`job "${job}" is declared by ${owners.length} queues (${owners.join(', ')})`);
    const found = handlers.filter((h) => h.job === job).map((h) => h.name);
    if (found.length === 0) problems.push(`job "${job}" of queue "${owners[0]}" has no @OnJob handler`);
    if (found.length > 1) problems.push(`job "${job}" has ${found.length} @OnJob handlers (${found.join(', ')})`);
    const onFailed = failedHandlers.filter((h) => h.job === job).map((h) => h.name);
    if (onFailed.length > 1) problems.push(`job "${job}" has ${onFailed.length} @OnJobFailed handlers (${onFailed.join(', ')})`);
  }
  for (const h of [...handlers, ...failedHandlers]) {
    if (!declared.has(h.job)) problems.push(`${h.name} handles job "${h.job}", which no queue declares`);
  }
  if (problems.length) {
    throw new Error(
      `Job handlers do not match the queues declared in src/common/queue/queues.ts: ${problems.join('; ')}. ` +
        'Each job needs exactly one @OnJob method in a provider of a module that WorkersModule imports.',
    );
  }
}
