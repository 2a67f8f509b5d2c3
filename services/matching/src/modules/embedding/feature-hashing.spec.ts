import { describe, expect, it } from 'vitest';
import { cosine } from './embedder.ts';
import { FeatureHashingEmbedder } from './feature-hashing.ts';
import { hashFeed, hashFinish, hashStart } from './hash.ts';

const norm = (v: Float32Array) => Math.sqrt(cosine(v, v));

// FNV-1a written independently (BigInt), to check the Math.imul version.
function fnv1aReference(codes: number[]): number {
  let h = 0x811c9dc5n;
  for (const code of codes) h = ((h ^ BigInt(code)) * 0x01000193n) % 2n ** 32n;
  return Number(h);
}

describe('feature hash', () => {
  it('is FNV-1a over the tag and the code units', () => {
    const codes = [0x77, ...Array.from('typescript', (c) => c.charCodeAt(0))];
    expect(hashFeed(hashStart(0x77), 'typescript') >>> 0).toBe(fnv1aReference(codes));
  });

  it('gives the same numbers in every process and Node version (golden values)', () => {
    // A change here changes every stored vector: bump the embedder's id (v1) with it.
    expect(hashFinish(hashFeed(hashStart(0), 'typescript'))).toBe(3726939690);
    expect(hashFinish(hashFeed(hashStart(0), ''))).toBe(91794203);
    expect(hashFinish(hashFeed(hashStart(0x77), 'c++'))).toBe(1840594110);
  });
});

describe('FeatureHashingEmbedder', () => {
  const embedder = new FeatureHashingEmbedder();

  it('names its version and size', () => {
    expect(embedder.id).toBe('feature-hash-v1-384');
    expect(embedder.dims).toBe(384);
    const small = new FeatureHashingEmbedder({ dims: 64 });
    expect(small.id).toBe('feature-hash-v1-64');
    expect(small.embedText('TypeScript')).toHaveLength(64);
  });

  it('is deterministic: same text, same vector, across instances (golden values)', async () => {
    const text = 'Senior TypeScript engineer';
    const [a] = await embedder.embed([text]);
    const b = new FeatureHashingEmbedder().embedText(text);
    expect(a).toEqual(b);
    // 3 words, 2 pairs, 23 trigrams land on 28 distinct dimensions
    expect(b.filter((x) => x !== 0)).toHaveLength(28);
    expect(b[1]).toBeCloseTo(0.108135, 6);
    expect(b[2]).toBeCloseTo(-0.108135, 6);
    expect(b[20]).toBeCloseTo(0.43254, 5);
  });

  it('returns unit vectors, and the zero vector for a text with nothing to count', async () => {
    const [a, b, empty, stop] = await embedder.embed([
      'Backend engineer, TypeScript and PostgreSQL',
      'x'.repeat(20_000),
      '',
      'the and of — 5+ !!!',
    ]);
    expect(norm(a!)).toBeCloseTo(1, 6);
    expect(norm(b!)).toBeCloseTo(1, 6);
    expect(empty!.every((x) => x === 0)).toBe(true);
    expect(stop!.every((x) => x === 0)).toBe(true);
  });

  it('embeds spellings of one technology alike', () => {
    const a = embedder.embedText('Node.js developer');
    expect(embedder.embedText('nodejs developer')).toEqual(a);
    expect(embedder.embedText('NODE.JS Developer')).toEqual(a);
    expect(embedder.embedText('Node developer')).toEqual(a);
    expect(cosine(embedder.embedText('C++ developer'), embedder.embedText('C developer'))).toBeLessThan(0.9);
  });

  it('puts similar texts closer than unrelated ones', () => {
    const role = embedder.embedText('Senior TypeScript backend engineer, Node.js and PostgreSQL');
    const near = embedder.embedText('Backend engineering with TypeScript on Node');
    const far = embedder.embedText('Warehouse operator, forklift licence, picking and packing');
    expect(cosine(role, near)).toBeGreaterThan(0.3);
    expect(Math.abs(cosine(role, far))).toBeLessThan(0.15);
    // trigrams carry near-spellings
    expect(cosine(embedder.embedText('engineer'), embedder.embedText('engineering'))).toBeGreaterThan(0.2);
  });

  it('refuses bad input with a clear error', async () => {
    await expect(embedder.embed('text' as unknown as string[])).rejects.toThrow(/array of strings/);
    await expect(embedder.embed([42 as unknown as string])).rejects.toThrow(/array of strings/);
    expect(() => new FeatureHashingEmbedder({ dims: 3 })).toThrow(/dims/);
  });
});
