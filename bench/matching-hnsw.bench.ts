// Where exact search stops being enough (docs/matching.md, "At 10M vectors"):
// our exact scan (the matching index's search) and usearch's exact search
// beside usearch's HNSW index (build time, search time, recall@50) at growing
// sizes, each beside a bare dot-product scan of the same matrix in the same
// run. usearch is a dependency of the bench only, not of the service.
// HNSW builds take ~10 s per 100k on 2 cores: sizes stay small
// and the crossover is extrapolated from the measured slopes.
import { performance } from 'node:perf_hooks';
import {
  type EmbeddedProfile,
  FeatureHashingEmbedder,
  ProfileEmbedder,
  VectorIndex,
} from '@hireflow/matching/core';
import usearch from 'usearch';
import { makeCandidate, makePosting, seededRandom } from './matching-corpus.ts';
import { type BenchReport, percentile, round } from './report.ts';

const SIZES = (process.env.BENCH_HNSW_SIZES ?? '10000,50000,100000').split(',').map(Number);
const QUERIES = 100;
const K = 50;
/** The latency budget of one posting's search that the crossover is computed for. */
const BUDGET_MS = 100;
const NOISE = 0.05;

const embedder = new ProfileEmbedder(new FeatureHashingEmbedder());
const DIMS = embedder.dims;
type Row = Record<string, string | number>;

export default async function matchingHnswBench(): Promise<BenchReport> {
  const random = seededRandom(7);
  const postings = await embedder.embedPostings(Array.from({ length: 300 }, () => makePosting(random)));
  const candidates = await embedder.embedCandidates(
    Array.from({ length: 3000 }, () => makeCandidate(random)),
  );
  const rows: Row[] = [];
  const ratios: Record<string, number> = {};
  const slopes: { exact: number[]; hnswBuild: number[] } = { exact: [], hnswBuild: [] };
  for (const size of SIZES) {
    const r = measure(size, candidates, postings, random);
    rows.push(r.row);
    ratios[`HNSW search ÷ bare scan p50, ${size / 1000}k`] = r.hnswRatio;
    ratios[`exact search ÷ bare scan p50, ${size / 1000}k`] = r.exactRatio;
    slopes.exact.push(r.exactMs / size);
    slopes.hnswBuild.push(r.buildS / size);
  }
  const exactMsPerRow = Math.max(...slopes.exact);
  const crossover = BUDGET_MS / exactMsPerRow;
  const buildSPerRow = slopes.hnswBuild.at(-1)!;
  rows.push({
    size: 'extrapolated',
    'exact p50 ms': `${round(exactMsPerRow * 1e6, 1)} per 1M rows`,
    'exact p50 ms at 10M': round(exactMsPerRow * 1e7, 0),
    [`exact meets ${BUDGET_MS} ms up to`]: Math.round(crossover),
    'HNSW build s at 10M (linear, lower bound)': Math.round(buildSPerRow * 1e7),
  });
  return {
    description:
      `One posting's top ${K} by cosine, ${QUERIES} queries per size: the matching index's exact search (SIMD scan), ` +
      'usearch exactSearch, and a usearch HNSW index (f32, connectivity 16, expansion 128/64; build on every core), ' +
      'each beside a bare scan of the same matrix (the index kernel writing every dot), interleaved. ' +
      `Recall@${K} = share of the exact top ${K} that HNSW returns. The crossover is where the exact ` +
      `p50 (worst measured ms per row × rows) passes ${BUDGET_MS} ms.`,
    rows,
    ratios,
  };
}

function measure(
  size: number,
  rowsFrom: EmbeddedProfile[],
  queries: EmbeddedProfile[],
  random: () => number,
) {
  const matrix = new Float32Array(size * DIMS);
  const index = new VectorIndex({ kind: 'candidates', dims: DIMS, modelId: embedder.id, capacity: size });
  for (let row = 0, o = 0; row < size; row++, o += DIMS) {
    const source = rowsFrom[row % rowsFrom.length]!.vector;
    let norm = 0;
    for (let k = 0; k < DIMS; k++) {
      const x = source[k]! + NOISE * (2 * random() - 1);
      matrix[o + k] = x;
      norm += x * x;
    }
    // usearch's inner product wants unit rows, as the index stores them
    for (let k = 0; k < DIMS; k++) matrix[o + k]! /= Math.sqrt(norm);
    index.upsert({ id: String(row), vector: matrix.subarray(o, o + DIMS), skills: [] });
  }
  const keys = BigUint64Array.from({ length: size }, (_, i) => BigInt(i));
  const hnsw = new usearch.Index({
    metric: usearch.MetricKind.IP,
    dimensions: DIMS,
    connectivity: 16,
    quantization: usearch.ScalarKind.F32,
    expansion_add: 128,
    expansion_search: 64,
    multi: false,
  });
  const buildStart = performance.now();
  hnsw.add(keys, matrix, 0);
  const buildS = (performance.now() - buildStart) / 1000;

  const out = new Float32Array(size);
  const times = {
    bare: [] as number[],
    exact: [] as number[],
    usearchExact: [] as number[],
    hnsw: [] as number[],
  };
  let recalled = 0;
  for (let q = -1; q < QUERIES; q++) {
    const query = queries[Math.max(q, 0) % queries.length]!;
    const unit = query.vector;
    const runs: [keyof typeof times, () => void][] = [
      ['bare', () => index.dotAll(unit, out)],
      ['exact', () => index.search({ vector: unit, skills: [] }, { limit: K, threshold: -1 })],
      ['usearchExact', () => usearch.exactSearch(matrix, unit, DIMS, K, usearch.MetricKind.IP, 1)],
      ['hnsw', () => hnsw.search(unit, K, 1)],
    ];
    for (let i = 0; i < runs.length; i++) {
      const [name, run] = runs[(i + Math.max(q, 0)) % runs.length]!;
      const start = performance.now();
      run();
      if (q >= 0) times[name].push(performance.now() - start);
    }
    if (q >= 0) {
      const exact = new Set(
        index.search({ vector: unit, skills: [] }, { limit: K, threshold: -1 }).map((h) => h.id),
      );
      const found = hnsw.search(unit, K, 1) as { keys: BigUint64Array };
      for (const key of found.keys) if (exact.has(String(key))) recalled++;
    }
  }
  const p50 = (name: keyof typeof times) => percentile(times[name], 50);
  return {
    row: {
      size,
      'bare scan p50 ms': round(p50('bare'), 3),
      'exact p50 ms': round(p50('exact'), 3),
      'usearch exact p50 ms': round(p50('usearchExact'), 3),
      'HNSW p50 ms': round(p50('hnsw'), 3),
      'HNSW p99 ms': round(percentile(times.hnsw, 99), 3),
      [`HNSW recall@${K}`]: round(recalled / (QUERIES * K), 3),
      'HNSW build s': round(buildS, 1),
      'HNSW build µs/row': round((buildS * 1e6) / size, 0),
    } as Row,
    exactMs: p50('exact'),
    buildS,
    hnswRatio: p50('hnsw') / p50('bare'),
    exactRatio: p50('exact') / p50('bare'),
  };
}
