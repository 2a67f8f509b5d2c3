// Brings a worker's in-memory tenant up to date from the tables, inside the
// computation's transaction and under the tenant's lock: every change below
// the values this transaction draws is committed (or its own), so after the
// sync the indexes hold exactly what the tables say.
import type { Sql } from '@hireflow/db';
import { trace } from '@opentelemetry/api';
import type { EmbeddedProfile, ProfileEmbedder } from '../embedding/profile.ts';
import { type ChangeRow, changesSince, storeReembedded, textsOf } from '../profiles/store.ts';
import { decodeVector } from '../profiles/vectors.ts';
import type { IndexChange, TenantState } from './tenant-cache.ts';

const tracer = trace.getTracer('@hireflow/matching');

/** Rows read per query: about 8 MB of vectors at 384 dims. */
export const SYNC_PAGE = 5000;

/** Applies the tenant's changes since its last sync; returns how many rows were read and re-embedded. */
export async function syncTenant(
  tx: Sql,
  state: TenantState,
  embedder: ProfileEmbedder,
  pageSize = SYNC_PAGE,
): Promise<{ rows: number; reembedded: number }> {
  const cold = state.lastSeq === 0n;
  const run = async () => {
    let rows = 0;
    let reembedded = 0;
    for (;;) {
      const page = await changesSince(tx, state.tenantId, state.lastSeq, pageSize);
      const fresh = await reembedStale(tx, page, embedder);
      reembedded += fresh.size;
      for (const row of page) state.apply(toChange(row, embedder.dims, fresh.get(row.id)), embedder.id);
      rows += page.length;
      if (page.length < pageSize) return { rows, reembedded };
    }
  };
  if (!cold) return run();
  // A first load can be large: it gets a span of its own.
  return tracer.startActiveSpan('load tenant index', async (span) => {
    try {
      const result = await run();
      span.setAttributes({
        'hireflow.tenant_id': state.tenantId,
        'matching.rows_loaded': result.rows,
        'matching.rows_reembedded': result.reembedded,
      });
      return result;
    } finally {
      span.end();
    }
  });
}

function toChange(row: ChangeRow, dims: number, fresh: EmbeddedProfile | undefined): IndexChange {
  const seq = BigInt(row.seq);
  const vector = fresh?.vector ?? (row.vector ? decodeVector(row.vector, dims) : null);
  const skills = fresh?.skills ?? row.canonical_skills ?? [];
  if (row.kind === 'candidate') return { kind: 'candidate', id: row.id, seq, vector: vector!, skills };
  return {
    kind: 'posting',
    id: row.id,
    seq,
    status: row.status!,
    vector,
    skills,
  };
}

/**
 * Rows whose vector another model made are embedded again from their text
 * (never mixed: the index refuses them) and stored back with this model's id.
 */
async function reembedStale(
  tx: Sql,
  page: ChangeRow[],
  embedder: ProfileEmbedder,
): Promise<Map<string, EmbeddedProfile>> {
  const fresh = new Map<string, EmbeddedProfile>();
  const stale = (kind: ChangeRow['kind']) =>
    page
      .filter((r) => r.kind === kind && r.vector !== null && r.model_id !== embedder.id)
      .filter((r) => kind === 'candidate' || r.status === 'open')
      .map((r) => r.id);
  for (const kind of ['candidate', 'posting'] as const) {
    const ids = stale(kind);
    if (ids.length === 0) continue;
    const texts = await textsOf(tx, kind, ids);
    const profiles =
      kind === 'candidate'
        ? await embedder.embedCandidates(texts.map((t) => ({ headline: t.headline, skills: t.skills })))
        : await embedder.embedPostings(
            texts.map((t) => ({ title: t.title, description: t.description, skills: t.skills })),
          );
    for (const [i, text] of texts.entries()) {
      fresh.set(text.id, profiles[i]!);
      await storeReembedded(tx, kind, text.id, profiles[i]!);
    }
  }
  return fresh;
}
