// The tables are the truth; BullMQ only carries the work. A posting still
// pending, or a candidate still uncomputed, long after it arrived has its
// computation added again when its task is gone (Redis lost it, the add
// failed after the inbox handler committed). A task that failed for good is a
// dead letter, kept and counted for someone to read: not retried in a loop.
// Waiting, delayed and active tasks are left to run. Adding is idempotent by
// task id, so workers sweeping at once do no harm.
import type { Sql } from '@hireflow/db';
import { uncomputed } from '../profiles/store.ts';
import { computationKey, type MatchQueue, type MatchTask } from './queue.ts';

export async function requeueUncomputed(
  em: Sql,
  queue: MatchQueue,
  options: { olderThanMs: number; limit?: number },
): Promise<string[]> {
  const rows = await uncomputed(em, { olderThanMs: options.olderThanMs, limit: options.limit ?? 100 });
  const requeued: string[] = [];
  for (const row of rows) {
    const task: MatchTask =
      row.kind === 'posting'
        ? { kind: 'posting', tenantId: row.tenant_id, postingId: row.id }
        : { kind: 'candidate', tenantId: row.tenant_id, candidateId: row.id };
    // A completed task of this id ran before the row needed it again: makeRoom removes it.
    if ((await queue.tasks.makeRoom(computationKey(row.kind, row.event_id))) !== 'free') continue;
    await queue.add(task, row.event_id);
    requeued.push(`${row.kind}:${row.id}`);
  }
  return requeued;
}
