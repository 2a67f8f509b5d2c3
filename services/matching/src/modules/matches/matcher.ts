// The matching rules over the in-memory indexes, with no I/O: the worker
// persists what these return (a match is unique per posting + candidate, so
// a redelivered event finding the same matches again is harmless).
// - a posting, when it opens, gets its best candidates above the threshold,
//   at most `limit`;
// - a candidate, when registered, joins every open posting it fits (no cap:
//   the limit bounds the first computation only);
// - a closed posting leaves the postings index and gains no match after,
//   even if its job.posted.v1 is redelivered late;
// - everything happens inside one tenant's indexes.
import type { EmbeddedProfile } from '../embedding/profile.ts';
import { COSINE_WEIGHT, MATCH_LIMIT, MATCH_THRESHOLD } from '../scoring/score.ts';
import { TenantIndexes } from '../search/tenant-indexes.ts';

export interface MatcherOptions {
  /** `ProfileEmbedder.id`: profiles of another model are refused. */
  modelId: string;
  dims: number;
  threshold?: number;
  /** Candidates kept by a posting's first computation (default 50). */
  limit?: number;
  cosineWeight?: number;
}

export interface FoundMatch {
  tenantId: string;
  postingId: string;
  candidateId: string;
  score: number;
  cosine: number;
  overlap: number | null;
}

export class Matcher {
  readonly candidates: TenantIndexes;
  readonly postings: TenantIndexes;
  readonly threshold: number;
  readonly limit: number;
  readonly cosineWeight: number;
  readonly #closed = new Map<string, Set<string>>();

  constructor(options: MatcherOptions) {
    const { modelId, dims } = options;
    this.candidates = new TenantIndexes({ kind: 'candidates', dims, modelId });
    this.postings = new TenantIndexes({ kind: 'postings', dims, modelId });
    this.threshold = options.threshold ?? MATCH_THRESHOLD;
    this.limit = options.limit ?? MATCH_LIMIT;
    this.cosineWeight = options.cosineWeight ?? COSINE_WEIGHT;
  }

  /** A posting opened (or its job.posted.v1 redelivered): index it, return its best candidates. */
  postingOpened(tenantId: string, postingId: string, profile: EmbeddedProfile): FoundMatch[] {
    if (this.isClosed(tenantId, postingId)) return [];
    this.postings.upsert(tenantId, { id: postingId, ...profile }, profile.modelId);
    const hits = this.candidates.search(tenantId, profile, this.#options(this.limit));
    return hits.map(({ id, ...hit }) => ({ tenantId, postingId, candidateId: id, ...hit }));
  }

  /** A candidate registered: index them, return every open posting they fit. */
  candidateRegistered(tenantId: string, candidateId: string, profile: EmbeddedProfile): FoundMatch[] {
    this.candidates.upsert(tenantId, { id: candidateId, ...profile }, profile.modelId);
    const hits = this.postings.search(tenantId, profile, this.#options(undefined));
    return hits.map(({ id, ...hit }) => ({ tenantId, postingId: id, candidateId, ...hit }));
  }

  /** A posting closed: it leaves the index for good. */
  postingClosed(tenantId: string, postingId: string): void {
    this.postings.remove(tenantId, postingId);
    let closed = this.#closed.get(tenantId);
    if (closed === undefined) {
      closed = new Set();
      this.#closed.set(tenantId, closed);
    }
    closed.add(postingId);
  }

  isClosed(tenantId: string, postingId: string): boolean {
    return this.#closed.get(tenantId)?.has(postingId) ?? false;
  }

  // Loading a worker's state from Postgres: index without searching.
  loadCandidate(tenantId: string, candidateId: string, profile: EmbeddedProfile): void {
    this.candidates.upsert(tenantId, { id: candidateId, ...profile }, profile.modelId);
  }

  loadOpenPosting(tenantId: string, postingId: string, profile: EmbeddedProfile): void {
    if (!this.isClosed(tenantId, postingId)) {
      this.postings.upsert(tenantId, { id: postingId, ...profile }, profile.modelId);
    }
  }

  #options(limit: number | undefined) {
    return { threshold: this.threshold, limit, cosineWeight: this.cosineWeight };
  }
}
