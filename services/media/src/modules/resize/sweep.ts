import type { Sql } from '@hireflow/db';
import { enqueueResize, type ResizeQueue, resizeIntent } from '../uploads/resize-queue.ts';
import { finishFailed } from '../uploads/service.ts';
import { findUploadById, stalePendingUploads } from '../uploads/store.ts';

export const GAVE_UP_REASON =
  'the image could not be processed (storage or database unavailable); upload it again';

/**
 * The safety net under "row, then task": an upload still pending after
 * `olderThanMs` whose task is missing (the add failed or timed out after the
 * commit, Redis lost it) gets it added; one whose task failed for good
 * (attempts exhausted on S3 or Postgres errors) ends `failed`, with its
 * event. Tasks waiting, running or delayed for a retry are left alone.
 */
export async function sweepPendingUploads(
  em: Sql,
  queue: ResizeQueue,
  options: { olderThanMs: number; limit?: number },
): Promise<{ requeued: string[]; failed: string[] }> {
  const result = { requeued: [] as string[], failed: [] as string[] };
  for (const row of await stalePendingUploads(em, options.olderThanMs, options.limit ?? 100)) {
    // A completed task of a pending upload cannot finish it again: makeRoom removes it.
    const state = await queue.makeRoom(resizeIntent(row.id));
    if (state === 'free') {
      await enqueueResize(queue, { uploadId: row.id, tenantId: row.tenant_id });
      result.requeued.push(row.id);
    } else if (state === 'failed') {
      const upload = await findUploadById(em, row.id);
      if (upload && (await finishFailed(em, upload, GAVE_UP_REASON))) result.failed.push(row.id);
    }
  }
  return result;
}
