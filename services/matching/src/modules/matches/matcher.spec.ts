import { describe, expect, it } from 'vitest';
import { FeatureHashingEmbedder } from '../embedding/feature-hashing.ts';
import { type EmbeddedProfile, ProfileEmbedder } from '../embedding/profile.ts';
import * as profiles from '../scoring/profiles.fixture.ts';
import { Matcher } from './matcher.ts';

const embedder = new ProfileEmbedder(new FeatureHashingEmbedder());
const [tsRole, warehouseRole] = await embedder.embedPostings([
  profiles.typescriptBackendRole,
  profiles.warehouseRole,
]);
const [tsEngineer, operator, javaEngineer] = await embedder.embedCandidates([
  profiles.typescriptEngineer,
  profiles.warehouseOperator,
  profiles.javaEngineer,
]);
const matcher = () => new Matcher({ modelId: embedder.id, dims: embedder.dims });
const ids = (matches: { postingId: string; candidateId: string }[]) =>
  matches.map((m) => `${m.postingId}:${m.candidateId}`);

describe('Matcher', () => {
  it('gives an opening posting its best candidates above the threshold', () => {
    const m = matcher();
    m.candidateRegistered('t', 'ts', tsEngineer!);
    m.candidateRegistered('t', 'op', operator!);
    m.candidateRegistered('t', 'java', javaEngineer!);
    expect(ids(m.postingOpened('t', 'ts-role', tsRole!))).toEqual(['ts-role:ts']);
    expect(ids(m.postingOpened('t', 'wh-role', warehouseRole!))).toEqual(['wh-role:op']);
  });

  it('caps the first computation at `limit`, best first', () => {
    const m = new Matcher({ modelId: embedder.id, dims: embedder.dims, limit: 2 });
    // a near-duplicate of the TypeScript engineer scores just below the original
    const weaker: EmbeddedProfile = { ...tsEngineer!, skills: tsEngineer!.skills.slice(0, 3) };
    m.candidateRegistered('t', 'c3', weaker);
    m.candidateRegistered('t', 'c2', tsEngineer!);
    m.candidateRegistered('t', 'c1', tsEngineer!);
    const found = m.postingOpened('t', 'p', tsRole!);
    expect(found.map((f) => f.candidateId)).toEqual(['c1', 'c2']);
    expect(found[0]!.score).toBe(found[1]!.score);
  });

  it('adds a newly registered candidate to every open posting it fits, and none once closed', () => {
    const m = matcher();
    m.postingOpened('t', 'p1', tsRole!);
    m.postingOpened('t', 'p2', tsRole!);
    m.postingOpened('t', 'wh', warehouseRole!);
    expect(ids(m.candidateRegistered('t', 'c1', tsEngineer!))).toEqual(['p1:c1', 'p2:c1']);
    m.postingClosed('t', 'p1');
    expect(ids(m.candidateRegistered('t', 'c2', tsEngineer!))).toEqual(['p2:c2']);
    // a late redelivery of the closed posting's job.posted.v1 re-opens nothing
    expect(m.postingOpened('t', 'p1', tsRole!)).toEqual([]);
    expect(ids(m.candidateRegistered('t', 'c3', tsEngineer!))).toEqual(['p2:c3']);
  });

  it('matches inside one tenant only', () => {
    const m = matcher();
    m.candidateRegistered('tenant-a', 'c1', tsEngineer!);
    m.postingOpened('tenant-b', 'p1', tsRole!);
    expect(m.postingOpened('tenant-b', 'p2', tsRole!)).toEqual([]);
    expect(m.candidateRegistered('tenant-b', 'c2', tsEngineer!)).toMatchObject([
      { tenantId: 'tenant-b', postingId: 'p1' },
      { tenantId: 'tenant-b', postingId: 'p2' },
    ]);
  });

  it('refuses a profile embedded by another model', () => {
    const m = matcher();
    expect(() => m.candidateRegistered('t', 'c', { ...tsEngineer!, modelId: 'feature-hash-v0-384' })).toThrow(
      /re-embed/,
    );
  });
});
