// Postings and candidates as matching stores them, for the worker and the benchmarks.
export {
  insertCandidate,
  insertPosting,
  lockTenant,
  markCandidateComputed,
  storeCandidateVector,
} from './store.ts';
export { decodeVector, encodeVector } from './vectors.ts';
