import { describe, expect, it } from 'vitest';
import type { Embedder } from './embedder.ts';
import { type CandidateText, embedFieldDocuments, ProfileEmbedder } from './profile.ts';

// A two-dimensional embedder whose vectors can be summed by hand, recording what it is asked.
function handEmbedder(): Embedder & { calls: string[][] } {
  const table: Record<string, number[]> = { a: [1, 0], b: [0, 1], ab: [0.6, 0.8] };
  const calls: string[][] = [];
  return {
    id: 'hand-2',
    dims: 2,
    calls,
    async embed(texts) {
      calls.push([...texts]);
      return texts.map((t) => Float32Array.from(table[t.trim().toLowerCase()] ?? [0, 0]));
    },
  };
}

describe('embedFieldDocuments', () => {
  it('sums unit field vectors by weight and re-normalises', async () => {
    const [v] = await embedFieldDocuments(handEmbedder(), [
      [
        { text: 'a', weight: 0.75 },
        { text: 'b', weight: 0.25 },
      ],
    ]);
    // (0.75, 0.25) / √0.625 = (0.948683, 0.316228)
    expect(v![0]).toBeCloseTo(0.948683, 5);
    expect(v![1]).toBeCloseTo(0.316228, 5);
  });

  it('leaves blank fields out, so the others share their weight', async () => {
    const embedder = handEmbedder();
    const [v] = await embedFieldDocuments(embedder, [
      [
        { text: 'ab', weight: 0.2 },
        { text: '   ', weight: 0.8 },
      ],
    ]);
    expect(v![0]).toBeCloseTo(0.6, 6);
    expect(v![1]).toBeCloseTo(0.8, 6);
    expect(embedder.calls).toEqual([['ab']]);
  });

  it('embeds every field of every document in one call, in order', async () => {
    const embedder = handEmbedder();
    const vectors = await embedFieldDocuments(embedder, [
      [{ text: 'a', weight: 1 }],
      [],
      [{ text: 'b', weight: 1 }],
    ]);
    expect(embedder.calls).toEqual([['a', 'b']]);
    expect(vectors.map((v) => Array.from(v))).toEqual([
      [1, 0],
      [0, 0],
      [0, 1],
    ]);
  });

  it('refuses bad weights and vectors of the wrong length', async () => {
    await expect(embedFieldDocuments(handEmbedder(), [[{ text: 'a', weight: -1 }]])).rejects.toThrow(
      RangeError,
    );
    await expect(
      embedFieldDocuments(handEmbedder(), [[{ text: undefined as unknown as string, weight: 1 }]]),
    ).rejects.toThrow(/field text must be a string/);
    const broken: Embedder = { id: 'broken', dims: 3, embed: async (t) => t.map(() => new Float32Array(2)) };
    await expect(embedFieldDocuments(broken, [[{ text: 'a', weight: 1 }]])).rejects.toThrow(/wrong length/);
  });
});

describe('ProfileEmbedder', () => {
  it('stores the embedder id and field layout with each vector, and canonical skills', async () => {
    const profiles = new ProfileEmbedder(handEmbedder());
    expect(profiles.id).toBe('hand-2+fields-v1');
    const [posting] = await profiles.embedPostings([
      { title: 'a', description: 'b', skills: ['TS', 'Node.js'] },
    ]);
    expect(posting!.modelId).toBe('hand-2+fields-v1');
    expect(posting!.skills).toEqual(['typescript', 'nodejs']);
  });

  it('never embeds a candidate’s name or email', async () => {
    const embedder = handEmbedder();
    const candidate = {
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      headline: 'Analytical engine programmer',
      skills: ['Mathematics'],
    } as CandidateText;
    await new ProfileEmbedder(embedder).embedCandidates([candidate]);
    const seen = embedder.calls.flat().join(' ');
    expect(seen).toContain('Analytical engine programmer');
    expect(seen).not.toMatch(/Ada|Lovelace|example\.com/);
  });
});
