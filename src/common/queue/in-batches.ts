/**
 * Runs `step` with a limit of `size` rows until a step does fewer than its limit or `max` rows are done, so
 * that a pass works through a backlog one bounded batch (one transaction) at a time; answers the rows done.
 */
export async function inBatches(size: number, step: (limit: number) => Promise<number>, max = Infinity): Promise<number> {
  let done = 0;
  while (done < max) {
    const limit = Math.min(size, max - done);
    const n = await step(limit);
    done += n;
    if (n < limit) break;
  }
  return done;
}
