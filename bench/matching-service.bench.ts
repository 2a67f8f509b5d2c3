// The matching service around the scan, per tenant size: a worker's cold load
// of a tenant (read, decode, index) beside a bare read of the same rows, and a
// posting's first computation (embed, tenant lock, sync, search, matches and
// their events through the outbox, commit) beside a bare scan of the same
// matrix. Interleaved, in one run, against a database of its own.
import { randomUUID } from 'node:crypto';
import { createDatabase, type Database, dropDatabase, ensureDatabase, migrateDatabase } from '@hireflow/db';
import { FeatureHashingEmbedder, ProfileEmbedder } from '@hireflow/matching/core';
import { computePosting, type MatchingContext, syncTenant, TenantCache } from '@hireflow/matching/matches';
import { encodeVector, insertPosting } from '@hireflow/matching/profiles';
import { matchingService } from '@hireflow/matching/service';
import pg from 'pg';
import { makeCandidate, makePosting, seededRandom } from './matching-corpus.ts';
import { type BenchReport, percentile, round } from './report.ts';

const SERVER = process.env.BENCH_DATABASE_SERVER ?? 'postgres://postgres@127.0.0.1:5432';
const SIZES = (process.env.BENCH_MATCHING_SIZES ?? '10000,100000').split(',').map(Number);
const LOADS = Number(process.env.BENCH_LOADS ?? 3);
const COMPUTATIONS = Number(process.env.BENCH_COMPUTATIONS ?? 30);
const SEED_BATCH = 1000;

const embedder = new ProfileEmbedder(new FeatureHashingEmbedder());
const settings = { threshold: 0.4, limit: 50, cosineWeight: 0.6 };

/** N candidates of one tenant, stored as the service stores them (embedded, computed). */
async function seed(client: pg.Client, tenantId: string, count: number, random: () => number) {
  for (let first = 0; first < count; first += SEED_BATCH) {
    const texts = Array.from({ length: Math.min(SEED_BATCH, count - first) }, () => makeCandidate(random));
    const profiles = await embedder.embedCandidates(texts);
    const params: unknown[] = [];
    const rows = texts.map((text, i) => {
      const at = params.length;
      params.push(
        randomUUID(),
        tenantId,
        text.headline,
        JSON.stringify(text.skills),
        embedder.id,
        encodeVector(profiles[i]!.vector),
        JSON.stringify(profiles[i]!.skills),
        randomUUID(),
      );
      const p = (k: number) => `$${at + k}`;
      return `(${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}::jsonb, ${p(5)}, ${p(6)}, ${p(7)}::jsonb, nextval('change_seq'), now(), ${p(8)})`;
    });
    await client.query(
      `INSERT INTO candidate (id, tenant_id, headline, skills, model_id, vector, canonical_skills, seq, computed_at, event_id)
       VALUES ${rows.join(', ')}`,
      params,
    );
  }
}

async function time<T>(work: () => Promise<T>): Promise<[number, T]> {
  const started = performance.now();
  const result = await work();
  return [performance.now() - started, result];
}

async function measure(orm: Database, client: pg.Client, size: number) {
  const random = seededRandom(size);
  const tenantId = randomUUID();
  await seed(client, tenantId, size, random);
  const bareRead: number[] = [];
  const coldLoad: number[] = [];
  for (let round = 0; round < LOADS; round++) {
    const [read] = await time(() =>
      client.query('SELECT id, vector FROM candidate WHERE tenant_id = $1 AND seq > 0', [tenantId]),
    );
    bareRead.push(read);
    const cache = new TenantCache({ dims: embedder.dims, modelId: embedder.id, idleMs: 60_000 });
    const [load] = await time(() =>
      cache.use(tenantId, (state) => orm.em.fork().transactional((tx) => syncTenant(tx, state, embedder))),
    );
    coldLoad.push(load);
  }

  const cache = new TenantCache({ dims: embedder.dims, modelId: embedder.id, idleMs: 60_000 });
  const context: MatchingContext = { orm, cache, embedder, settings };
  const bareScan: number[] = [];
  const computation: number[] = [];
  const found: number[] = [];
  const out = new Float32Array(size);
  for (let i = 0; i <= COMPUTATIONS; i++) {
    const text = makePosting(random);
    const postingId = randomUUID();
    const [query] = await embedder.embedPostings([text]);
    await insertPosting(orm.em.fork(), {
      postingId,
      tenantId,
      ...text,
      skills: [...text.skills],
      postedAt: new Date().toISOString(),
      eventId: randomUUID(),
    });
    const [scan] = await time(() =>
      cache.use(tenantId, async (state) => state.candidates.dotAll(query!.vector, out)),
    );
    const [compute, result] = await time(() => computePosting(context, tenantId, postingId));
    if (i === 0) continue; // the first one loads the tenant
    bareScan.push(scan);
    computation.push(compute);
    found.push(result.newMatches);
  }
  return { bareRead, coldLoad, bareScan, computation, found };
}

export default async function run(): Promise<BenchReport> {
  const url = `${SERVER}/hireflow_bench_matching_service_${process.pid}`;
  await ensureDatabase(url);
  const orm = createDatabase({
    url,
    migrations: matchingService.migrations,
  });
  const client = new pg.Client({ connectionString: url });
  try {
    await migrateDatabase(orm);
    await client.connect();
    const rows: BenchReport['rows'] = [];
    const ratios: BenchReport['ratios'] = {};
    for (const size of SIZES) {
      const m = await measure(orm, client, size);
      const p50 = (values: number[]) => round(percentile(values, 50), 2);
      rows.push(
        {
          case: `${size} candidates: bare read of the rows`,
          p50_ms: p50(m.bareRead),
          per_1k_rows_ms: round(percentile(m.bareRead, 50) / (size / 1000), 3),
        },
        {
          case: `${size} candidates: cold load (read, decode, index)`,
          p50_ms: p50(m.coldLoad),
          per_1k_rows_ms: round(percentile(m.coldLoad, 50) / (size / 1000), 3),
        },
        {
          case: `${size} candidates: bare scan of the matrix`,
          p50_ms: p50(m.bareScan),
          p99_ms: round(percentile(m.bareScan, 99), 2),
        },
        {
          case: `${size} candidates: a posting's first computation`,
          p50_ms: p50(m.computation),
          p99_ms: round(percentile(m.computation, 99), 2),
          matches_p50: percentile(m.found, 50),
        },
      );
      ratios[`cold load ÷ bare read, ${size}`] = percentile(m.coldLoad, 50) / percentile(m.bareRead, 50);
      ratios[`computation ÷ bare scan, ${size}`] = percentile(m.computation, 50) / percentile(m.bareScan, 50);
    }
    return {
      description: `Matching service per tenant size: a worker's cold load of a tenant beside a bare read of its rows, and a posting's first computation (embed, lock, sync, search, ${settings.limit} matches and their events, commit) beside a bare scan of the same matrix; p50 of ${LOADS} loads and ${COMPUTATIONS} computations.`,
      rows,
      ratios,
    };
  } finally {
    await client.end().catch(() => undefined);
    await orm.close();
    await dropDatabase(url);
  }
}
