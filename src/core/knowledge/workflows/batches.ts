import { LlmError } from '../../llm/errors.js';
import type { RunContext, WorkflowName } from './types.js';

/*
 * How the model-calling workflows spend: items in batches, each batch's
 * results written as it completes, so a run that is killed or stops at its
 * token budget is continued by running again, re-spending at most the batch
 * in flight.
 */

export function checkSignal(ctx: Pick<RunContext, 'signal'>): void {
  if (ctx.signal?.aborted) throw new LlmError('cancelled', 'Cancelled.');
}

export async function runBatches<T, R>(
  ctx: RunContext,
  workflow: WorkflowName,
  items: readonly T[],
  call: (item: T) => Promise<R>,
  write: (done: { item: T; result: R }[]) => Promise<void>,
  batch = ctx.batch,
): Promise<void> {
  let done = 0;
  for (let i = 0; i < items.length; i += batch) {
    checkSignal(ctx);
    const slice = items.slice(i, i + batch);
    const settled = await Promise.allSettled(slice.map(call));
    const ok: { item: T; result: R }[] = [];
    let stop: unknown;
    settled.forEach((s, k) => {
      if (s.status === 'fulfilled') ok.push({ item: slice[k]!, result: s.value });
      else stop ??= s.reason;
    });
    // Whatever finished is kept, even when the batch stops the run.
    if (ok.length) await write(ok);
    done += slice.length;
    ctx.onProgress?.({ workflow, done, total: items.length });
    if (stop) throw stop;
  }
}
