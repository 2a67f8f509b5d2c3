import { describe, expect, it } from 'vitest';
import { cosine } from '../embedding/embedder.ts';
import { FeatureHashingEmbedder } from '../embedding/feature-hashing.ts';
import { type CandidateText, type PostingText, ProfileEmbedder } from '../embedding/profile.ts';
import * as profiles from './profiles.fixture.ts';
import { COSINE_WEIGHT, MATCH_THRESHOLD, score, scoreUpperBound, skillOverlap } from './score.ts';

describe('score, by hand', () => {
  // posting (1, 0), candidate (0.6, 0.8): cos = 1·0.6 + 0·0.8 = 0.6
  const cos = cosine(Float32Array.of(1, 0), Float32Array.of(0.6, 0.8));

  it('is 0.6·cos + 0.4·overlap', () => {
    expect(COSINE_WEIGHT).toBe(0.6);
    expect(cos).toBeCloseTo(0.6, 6);
    // overlap: 2 of the posting's 3 skills → 2/3; score = 0.36 + 0.4·2/3 = 0.626667
    const s = score({
      cosine: cos,
      postingSkills: ['typescript', 'nodejs', 'postgresql'],
      candidateSkills: ['nodejs', 'typescript', 'react', 'docker'],
    });
    expect(s.overlap).toBeCloseTo(2 / 3, 12);
    expect(s.score).toBeCloseTo(0.626667, 6);
  });

  it('counts only the posting’s skills: extra candidate skills change nothing', () => {
    expect(skillOverlap(['go'], ['go'])).toBe(1);
    expect(skillOverlap(['go'], ['go', 'rust', 'c', 'java'])).toBe(1);
    expect(skillOverlap(['go', 'rust'], [])).toBe(0);
  });

  it('scores a posting without skills by cosine alone', () => {
    const s = score({ cosine: 0.55, postingSkills: [], candidateSkills: ['go'] });
    expect(s).toEqual({ score: 0.55, cosine: 0.55, overlap: null });
  });

  it('clamps a negative cosine to 0', () => {
    // 0.6·0 + 0.4·(1/2) = 0.2
    expect(score({ cosine: -0.5, postingSkills: ['go', 'rust'], candidateSkills: ['go'] }).score).toBeCloseTo(
      0.2,
      12,
    );
  });

  it('is bounded by w·cos + (1 − w), what the index prunes with', () => {
    expect(scoreUpperBound(0.5)).toBeCloseTo(0.7, 12);
    for (const overlap of [[], ['a'], ['a', 'b']]) {
      const s = score({ cosine: 0.5, postingSkills: ['a', 'b'], candidateSkills: overlap });
      expect(s.score).toBeLessThanOrEqual(scoreUpperBound(0.5));
    }
  });

  it('matches at the threshold itself: 0.4 ≥ 0.4 (cos 0, every skill)', () => {
    expect(MATCH_THRESHOLD).toBe(0.4);
    expect(score({ cosine: 0, postingSkills: ['a'], candidateSkills: ['a'] }).score).toBeGreaterThanOrEqual(
      MATCH_THRESHOLD,
    );
  });

  it('refuses a bad weight or cosine', () => {
    expect(() => score({ cosine: 0.5, postingSkills: [], candidateSkills: [] }, 0)).toThrow(RangeError);
    expect(() => score({ cosine: Number.NaN, postingSkills: [], candidateSkills: [] })).toThrow(RangeError);
  });
});

describe('score, realistic profiles (feature hashing, 384 dims)', () => {
  const embedder = new ProfileEmbedder(new FeatureHashingEmbedder());
  async function scoreOf(posting: PostingText, candidate: CandidateText) {
    const [p] = await embedder.embedPostings([posting]);
    const [c] = await embedder.embedCandidates([candidate]);
    return score({
      cosine: cosine(p!.vector, c!.vector),
      postingSkills: p!.skills,
      candidateSkills: c!.skills,
    });
  }

  it('matches a TypeScript engineer to a TypeScript backend role', async () => {
    const s = await scoreOf(profiles.typescriptBackendRole, profiles.typescriptEngineer);
    // typescript, nodejs, postgresql, redis, aws of 7 → 5/7
    expect(s.overlap).toBeCloseTo(5 / 7, 12);
    expect(s.score).toBeCloseTo(0.739, 2);
    expect(s.score).toBeGreaterThanOrEqual(MATCH_THRESHOLD);
  });

  it('does not match a warehouse operator to it', async () => {
    const s = await scoreOf(profiles.typescriptBackendRole, profiles.warehouseOperator);
    expect(s.overlap).toBe(0);
    expect(s.score).toBeLessThan(0.1);
  });

  it('leaves a Java backend engineer just below the threshold (borderline)', async () => {
    const s = await scoreOf(profiles.typescriptBackendRole, profiles.javaEngineer);
    // postgresql, aws, docker of 7 → 3/7; the backend vocabulary gives cos ≈ 0.32
    expect(s.overlap).toBeCloseTo(3 / 7, 12);
    expect(s.score).toBeCloseTo(0.364, 2);
    expect(s.score).toBeLessThan(MATCH_THRESHOLD);
    // the same Java engineer clears the bar for a role asking for what they have
    const javaRole = { ...profiles.typescriptBackendRole, skills: ['Java', 'PostgreSQL', 'AWS', 'Docker'] };
    expect((await scoreOf(javaRole, profiles.javaEngineer)).score).toBeGreaterThanOrEqual(MATCH_THRESHOLD);
  });

  it('scores the warehouse role the other way round', async () => {
    expect((await scoreOf(profiles.warehouseRole, profiles.warehouseOperator)).score).toBeGreaterThan(0.6);
    expect((await scoreOf(profiles.warehouseRole, profiles.typescriptEngineer)).score).toBeLessThan(0.1);
  });

  it('keeps the separation on cosine alone when a posting lists no skills', async () => {
    const bare = { ...profiles.typescriptBackendRole, skills: [] };
    expect((await scoreOf(bare, profiles.typescriptEngineer)).score).toBeGreaterThanOrEqual(MATCH_THRESHOLD);
    expect((await scoreOf(bare, profiles.warehouseOperator)).score).toBeLessThan(0.15);
    expect((await scoreOf(bare, profiles.javaEngineer)).score).toBeLessThan(MATCH_THRESHOLD);
  });
});
