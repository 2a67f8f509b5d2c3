// What one worker process holds in memory: per tenant, its candidates and
// open postings as exact indexes, and the last change (change_seq) applied.
// The tables are the truth; a computation brings its tenant up to date under
// the tenant's lock before it searches (sync.ts), so an index is never stale
// when it is read, whichever worker wrote last. Tenants are loaded on first
// use and freed when idle, so memory follows the tenants a worker serves.
import { VectorIndex } from '../search/vector-index.ts';

/** One change read from the tables, in sequence order. */
export type IndexChange =
  | { kind: 'candidate'; id: string; seq: bigint; vector: Float32Array; skills: string[] }
  | {
      kind: 'posting';
      id: string;
      seq: bigint;
      status: 'pending' | 'open' | 'closed';
      vector: Float32Array | null;
      skills: string[];
    };

export class TenantState {
  readonly tenantId: string;
  readonly candidates: VectorIndex;
  /** Open postings only: a closed one leaves, a pending one is not searched by candidates yet. */
  readonly postings: VectorIndex;
  /** Every change up to this one is applied. */
  lastSeq = 0n;
  lastUsedAt: number;

  constructor(tenantId: string, options: { dims: number; modelId: string }, now: number) {
    this.tenantId = tenantId;
    // Small to start (most tenants are small); rows double as they come.
    const index = { dims: options.dims, modelId: options.modelId, capacity: 64 };
    this.candidates = new VectorIndex({ kind: 'candidates', ...index });
    this.postings = new VectorIndex({ kind: 'postings', ...index });
    this.lastUsedAt = now;
  }

  apply(change: IndexChange, modelId: string): void {
    if (change.kind === 'candidate') {
      this.candidates.upsert({ id: change.id, vector: change.vector, skills: change.skills }, modelId);
    } else if (change.status === 'open' && change.vector) {
      this.postings.upsert({ id: change.id, vector: change.vector, skills: change.skills }, modelId);
    } else {
      this.postings.remove(change.id);
    }
    if (change.seq > this.lastSeq) this.lastSeq = change.seq;
  }
}

export interface TenantCacheOptions {
  dims: number;
  modelId: string;
  /** A tenant unused this long is freed by `evictIdle`. */
  idleMs: number;
  now?: () => number;
}

export class TenantCache {
  readonly #options: TenantCacheOptions;
  readonly #now: () => number;
  readonly #states = new Map<string, TenantState>();
  // Each tenant's queue of users (one at a time) and how many are waiting or running.
  readonly #queues = new Map<string, { tail: Promise<unknown>; users: number }>();

  constructor(options: TenantCacheOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /**
   * Runs `work` with the tenant's state, one at a time per tenant in this
   * process (computations of one tenant serialise in Postgres too; queuing
   * here keeps them from each holding a connection while they wait). When
   * `work` throws, the state is dropped: it may hold rows of a transaction
   * that rolled back, so the next use reloads the tenant.
   */
  use<T>(tenantId: string, work: (state: TenantState) => Promise<T>): Promise<T> {
    if (typeof tenantId !== 'string' || tenantId === '') {
      throw new RangeError('tenantId must be a non-empty string');
    }
    const queue = this.#queues.get(tenantId) ?? { tail: Promise.resolve(), users: 0 };
    this.#queues.set(tenantId, queue);
    queue.users++;
    const run = queue.tail.then(async () => {
      const state = this.#state(tenantId);
      try {
        return await work(state);
      } catch (error) {
        this.#states.delete(tenantId);
        throw error;
      } finally {
        state.lastUsedAt = this.#now();
        if (--queue.users === 0) this.#queues.delete(tenantId);
      }
    });
    queue.tail = run.catch(() => undefined);
    return run;
  }

  /** Frees tenants idle longer than `idleMs` and not in use; returns their ids. */
  evictIdle(): string[] {
    const cutoff = this.#now() - this.#options.idleMs;
    const freed: string[] = [];
    for (const [tenantId, state] of this.#states) {
      if (state.lastUsedAt <= cutoff && !this.#queues.has(tenantId)) {
        this.#states.delete(tenantId);
        freed.push(tenantId);
      }
    }
    return freed;
  }

  /** The tenants held in memory. */
  tenants(): string[] {
    return [...this.#states.keys()];
  }

  #state(tenantId: string): TenantState {
    let state = this.#states.get(tenantId);
    if (!state) {
      state = new TenantState(tenantId, this.#options, this.#now());
      this.#states.set(tenantId, state);
    }
    return state;
  }
}
