// The matching core: embeddings, skills, the score and the exact index.
// Pure and in-memory; the service's modules (profiles, matches) wire it to
// events and Postgres. See docs/matching.md.
export { cosine, type Embedder, l2Normalise } from './embedding/embedder.ts';
export {
  FEATURE_WEIGHTS,
  FeatureHashingEmbedder,
  type FeatureHashingOptions,
} from './embedding/feature-hashing.ts';
export {
  CANDIDATE_FIELD_WEIGHTS,
  type CandidateText,
  candidateFields,
  type EmbeddedProfile,
  embedFieldDocuments,
  POSTING_FIELD_WEIGHTS,
  type PostingText,
  ProfileEmbedder,
  postingFields,
  type WeightedField,
} from './embedding/profile.ts';
export { phrases } from './embedding/text.ts';
export {
  COSINE_WEIGHT,
  combineScore,
  MATCH_LIMIT,
  MATCH_THRESHOLD,
  type MatchScore,
  type ScoreInput,
  score,
  scoreUpperBound,
  skillOverlap,
} from './scoring/score.ts';
export {
  type IndexEntry,
  type IndexKind,
  type SearchHit,
  type SearchOptions,
  type SearchQuery,
  VectorIndex,
  type VectorIndexOptions,
} from './search/vector-index.ts';
export { canonicalSkillKey } from './skills/aliases.ts';
export { normaliseSkill, normaliseSkills } from './skills/skills.ts';
export { normaliseText } from './skills/spelling.ts';
