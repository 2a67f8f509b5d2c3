// The computations and the per-worker indexes, for the worker and the benchmarks.
export { matchingHandlers } from './consumers.ts';
export { createMatchQueue, type MatchQueue, type MatchTask } from './queue.ts';
export {
  type Computation,
  computeCandidate,
  computePosting,
  type MatchingContext,
  type MatchSettings,
} from './service.ts';
export { SYNC_PAGE, syncTenant } from './sync.ts';
export { type IndexChange, TenantCache, TenantState } from './tenant-cache.ts';
