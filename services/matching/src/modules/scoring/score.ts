// The match score of a posting P and a candidate C (docs/matching.md, "Score"):
//
//   cos     = P.vector · C.vector                 (both unit length: the cosine)
//   overlap = |skills(P) ∩ skills(C)| / |skills(P)|   (canonical skill keys)
//   score   = w · max(0, cos) + (1 − w) · overlap      when P lists skills
//   score   = max(0, cos)                              when P lists none
//
// with w = COSINE_WEIGHT = 0.6, and a match when score ≥ MATCH_THRESHOLD = 0.4.
// The overlap is the share of what the posting asks for that the candidate
// has: extra candidate skills neither help nor hurt. A posting with no skills
// has nothing to overlap with, so its score is the cosine alone (rather than
// a zero overlap that would make it unmatchable).
//
// Both terms lie in [0, 1], so the score does too, and since overlap ≤ 1,
// score ≤ w · cos + (1 − w) for every candidate: the index skips the skills
// computation for any vector whose cosine cannot reach the bar.

/** Weight of the cosine; the skills overlap gets the rest. */
export const COSINE_WEIGHT = 0.6;
/** A candidate matches a posting when its score is at least this. */
export const MATCH_THRESHOLD = 0.4;
/** A posting's first computation keeps at most this many candidates (configurable by the caller). */
export const MATCH_LIMIT = 50;

export interface ScoreInput {
  /** Dot product of the two unit vectors. */
  cosine: number;
  /** Canonical skill keys (`normaliseSkills`), without duplicates. */
  postingSkills: readonly string[];
  candidateSkills: readonly string[];
}

export interface MatchScore {
  score: number;
  cosine: number;
  /** Share of the posting's skills the candidate has; null when the posting lists none. */
  overlap: number | null;
}

/** Share of the posting's skills that the candidate has, or null when the posting lists none. */
export function skillOverlap(
  postingSkills: readonly string[],
  candidateSkills: readonly string[],
): number | null {
  if (postingSkills.length === 0) return null;
  const has = new Set(candidateSkills);
  let shared = 0;
  for (const skill of postingSkills) if (has.has(skill)) shared++;
  return shared / postingSkills.length;
}

/** The score formula itself, shared by `score` and the index so both give the same number. */
export function combineScore(cosine: number, overlap: number | null, cosineWeight = COSINE_WEIGHT): number {
  const similarity = Math.max(cosine, 0);
  return overlap === null ? similarity : cosineWeight * similarity + (1 - cosineWeight) * overlap;
}

/** The highest score a vector with this cosine can reach, whatever the skills. */
export function scoreUpperBound(cosine: number, cosineWeight = COSINE_WEIGHT): number {
  return combineScore(cosine, 1, cosineWeight);
}

export function score(input: ScoreInput, cosineWeight = COSINE_WEIGHT): MatchScore {
  assertCosineWeight(cosineWeight);
  if (!Number.isFinite(input.cosine))
    throw new RangeError(`cosine must be a finite number, got ${input.cosine}`);
  const overlap = skillOverlap(input.postingSkills, input.candidateSkills);
  return { score: combineScore(input.cosine, overlap, cosineWeight), cosine: input.cosine, overlap };
}

export function assertCosineWeight(cosineWeight: number): void {
  if (!(cosineWeight > 0 && cosineWeight <= 1)) {
    throw new RangeError(`the cosine weight must be in (0, 1], got ${cosineWeight}`);
  }
}
