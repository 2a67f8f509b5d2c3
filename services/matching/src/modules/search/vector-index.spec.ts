import { describe, expect, it } from 'vitest';
import { COSINE_WEIGHT, combineScore } from '../scoring/score.ts';
import { nearVector, randomSkills, randomVector, seededRandom } from './random.fixture.ts';
import { compareHits, type RankedHit } from './top-k.ts';
import {
  type IndexEntry,
  type IndexKind,
  type SearchOptions,
  type SearchQuery,
  VectorIndex,
} from './vector-index.ts';

// The reference: score every entry in double precision, sort, cut. No bound, no heap.
const units = new WeakMap<Float32Array, number[]>();
function unit(v: Float32Array): number[] {
  let u = units.get(v);
  if (u === undefined) {
    const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
    u = Array.from(v, (x) => (n === 0 ? 0 : x / n));
    units.set(v, u);
  }
  return u;
}

function bruteForce(
  kind: IndexKind,
  entries: Map<string, IndexEntry>,
  query: SearchQuery,
  options: SearchOptions,
) {
  const q = unit(query.vector);
  const hits: RankedHit[] = [];
  for (const entry of entries.values()) {
    const v = unit(entry.vector);
    const cos = v.reduce((s, x, i) => s + x * q[i]!, 0);
    const [posting, candidate] =
      kind === 'candidates' ? [query.skills, entry.skills] : [entry.skills, query.skills];
    const p = new Set(posting);
    const c = new Set(candidate);
    const overlap = p.size === 0 ? null : [...p].filter((s) => c.has(s)).length / p.size;
    const score = combineScore(cos, overlap, options.cosineWeight ?? COSINE_WEIGHT);
    if (score >= (options.threshold ?? 0.4)) hits.push({ id: entry.id, score, cosine: cos, overlap });
  }
  hits.sort(compareHits);
  return options.limit === undefined ? hits : hits.slice(0, options.limit);
}

function expectSameHits(actual: RankedHit[], expected: RankedHit[]) {
  expect(actual.map((h) => h.id)).toEqual(expected.map((h) => h.id));
  actual.forEach((hit, i) => {
    expect(hit.score).toBeCloseTo(expected[i]!.score, 5);
    expect(hit.overlap).toBe(expected[i]!.overlap);
  });
}

describe('VectorIndex against a brute-force reference (seeded random data)', () => {
  for (const [kind, dims] of [
    ['candidates', 20],
    ['candidates', 64],
    ['postings', 48],
  ] as const) {
    it(`${kind}, ${dims} dims: adds, replaces and removes, then searches alike`, () => {
      const random = seededRandom(dims * 7 + kind.length);
      const index = new VectorIndex({ kind, dims, modelId: 'm', capacity: 1 });
      const entries = new Map<string, IndexEntry>();
      const centres = Array.from({ length: 8 }, () => randomVector(random, dims));
      const pick = () => centres[Math.floor(random() * centres.length)]!;
      for (let op = 0; op < 6000; op++) {
        const id = `e${Math.floor(random() * 2500)}`;
        if (random() < 0.2) {
          expect(index.remove(id)).toBe(entries.delete(id));
        } else {
          const entry = { id, vector: nearVector(random, pick(), 0.8), skills: randomSkills(random) };
          expect(index.upsert(entry)).toBe(entries.has(id) ? 'replaced' : 'added');
          entries.set(id, entry);
        }
      }
      expect(index.size).toBe(entries.size);
      let found = 0;
      for (let q = 0; q < 20; q++) {
        const query = { vector: nearVector(random, pick(), 0.8), skills: randomSkills(random) };
        for (const options of [
          { threshold: 0.4, limit: 50 },
          { threshold: 0.3, limit: 1 },
          { threshold: 0.5 },
          { threshold: 0, limit: 10, cosineWeight: 0.8 },
        ]) {
          const expected = bruteForce(kind, entries, query, options);
          expectSameHits(index.search(query, options), expected);
          found += expected.length;
        }
      }
      // the queries found plenty (or the comparison would prove little)
      expect(found).toBeGreaterThan(2000);
    });
  }

  it('gives dotAll the cosines in row order', () => {
    const random = seededRandom(5);
    const index = new VectorIndex({ kind: 'candidates', dims: 32, modelId: 'm' });
    const entries = new Map<string, IndexEntry>();
    for (let i = 0; i < 100; i++) {
      const entry = { id: `c${i}`, vector: randomVector(random, 32), skills: [] };
      index.upsert(entry);
      entries.set(entry.id, entry);
    }
    const query = { vector: randomVector(random, 32), skills: [] };
    const reference = new Map(
      bruteForce('candidates', entries, query, { threshold: -1 }).map((h) => [h.id, h.cosine]),
    );
    const out = new Float32Array(100);
    index.dotAll(query.vector, out);
    index.ids().forEach((id, row) => {
      expect(out[row]).toBeCloseTo(reference.get(id)!, 5);
    });
  });
});

describe('VectorIndex', () => {
  const dims = 4;
  const make = (kind: IndexKind = 'candidates') => new VectorIndex({ kind, dims, modelId: 'm' });

  it('breaks ties by id, whatever the order of insertion', () => {
    const index = make();
    for (const id of ['d', 'b', 'e', 'a', 'c'])
      index.upsert({ id, vector: Float32Array.of(1, 1, 0, 0), skills: ['go'] });
    const query = { vector: Float32Array.of(1, 1, 0, 0), skills: ['go'] };
    expect(index.search(query).map((h) => h.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(index.search(query, { limit: 2 }).map((h) => h.id)).toEqual(['a', 'b']);
    // a better hit found late still displaces the worst kept one
    index.upsert({ id: 'z', vector: Float32Array.of(1, 1, 0, 0), skills: ['go', 'rust'] });
    const withRust = { ...query, skills: ['go', 'rust'] };
    expect(index.search(withRust, { limit: 2 }).map((h) => h.id)).toEqual(['z', 'a']);
  });

  it('stores unit vectors and canonical skills; replaces in place', () => {
    const index = make();
    index.upsert({ id: 'a', vector: Float32Array.of(3, 4, 0, 0), skills: ['go', 'go', 'sql'] });
    expect(Array.from(index.get('a')!.vector)).toEqual([0.6000000238418579, 0.800000011920929, 0, 0]);
    expect(index.get('a')!.skills).toEqual(['go', 'sql']);
    expect(index.upsert({ id: 'a', vector: Float32Array.of(0, 0, 2, 0), skills: [] })).toBe('replaced');
    expect(index.size).toBe(1);
    expect(Array.from(index.get('a')!.vector)).toEqual([0, 0, 1, 0]);
    expect(index.get('a')!.skills).toEqual([]);
  });

  it('never returns a removed entry, and keeps the others findable', () => {
    const index = make();
    for (const id of ['a', 'b', 'c']) index.upsert({ id, vector: Float32Array.of(1, 0, 0, 0), skills: [] });
    expect(index.remove('a')).toBe(true);
    expect(index.remove('a')).toBe(false);
    expect(index.remove('nobody')).toBe(false);
    const query = { vector: Float32Array.of(1, 0, 0, 0), skills: [] };
    expect(index.search(query).map((h) => h.id)).toEqual(['b', 'c']);
    expect(index.remove('c')).toBe(true); // the last row
    expect(index.search(query).map((h) => h.id)).toEqual(['b']);
    index.upsert({ id: 'a', vector: Float32Array.of(1, 0, 0, 0), skills: [] });
    expect(index.search(query).map((h) => h.id)).toEqual(['a', 'b']);
  });

  it('scores a posting without skills by cosine alone, and a candidate index against posting skills', () => {
    const candidates = make('candidates');
    candidates.upsert({ id: 'c', vector: Float32Array.of(0.6, 0.8, 0, 0), skills: ['go'] });
    const [hit] = candidates.search({ vector: Float32Array.of(1, 0, 0, 0), skills: [] });
    expect(hit).toMatchObject({ id: 'c', overlap: null });
    expect(hit!.score).toBeCloseTo(0.6, 6);

    const postings = make('postings');
    postings.upsert({ id: 'p', vector: Float32Array.of(1, 0, 0, 0), skills: ['go', 'rust'] });
    // candidate has go: 1 of the posting's 2 → 0.6·0.6 + 0.4·0.5 = 0.56
    const [fit] = postings.search({ vector: Float32Array.of(0.6, 0.8, 0, 0), skills: ['go', 'java'] });
    expect(fit!.overlap).toBe(0.5);
    expect(fit!.score).toBeCloseTo(0.56, 6);
  });

  it('keeps skills right through many replacements (pool compaction)', () => {
    const index = make();
    index.upsert({ id: 'keep', vector: Float32Array.of(0, 1, 0, 0), skills: ['a', 'b'] });
    for (let i = 0; i < 3000; i++) {
      index.upsert({ id: 'churn', vector: Float32Array.of(1, 0, 0, 0), skills: [`s${i}`, `t${i}`, 'u'] });
    }
    expect(index.get('keep')!.skills).toEqual(['a', 'b']);
    expect(index.get('churn')!.skills).toEqual(['s2999', 't2999', 'u']);
  });

  it('refuses vectors of another model or shape, bad options, and leaves itself unchanged', () => {
    const index = make();
    index.upsert({ id: 'a', vector: Float32Array.of(1, 0, 0, 0), skills: [] });
    const entry = { id: 'b', vector: Float32Array.of(1, 0, 0, 0), skills: [] };
    expect(() => index.upsert(entry, 'other-model')).toThrow(/re-embed/);
    expect(() => index.upsert({ ...entry, vector: Float32Array.of(1, 0) })).toThrow(RangeError);
    expect(() => index.upsert({ ...entry, vector: Float32Array.of(1, Number.NaN, 0, 0) })).toThrow(/finite/);
    expect(() => index.upsert({ ...entry, skills: 'go' as unknown as string[] })).toThrow(TypeError);
    expect(() => index.upsert({ ...entry, id: '' })).toThrow(RangeError);
    expect(index.size).toBe(1);
    expect(() => index.search({ vector: Float32Array.of(1, 0, 0, 0), skills: [] }, { limit: 0 })).toThrow(
      RangeError,
    );
    expect(() => index.search({ vector: Float32Array.of(1, 0, 0), skills: [] })).toThrow(RangeError);
  });
});
