// One tenant's postings or candidates, for exact search by match score.
// Ids and canonical skills sit beside a contiguous matrix of unit vectors
// (dot = cosine); a removal moves the last row into the hole, so rows stay
// packed and a scan never meets a tombstone.
//
// search() scans every row with the SIMD kernel and reads each dot once: the
// score can be no higher than w·cos + (1 − w) (an overlap of 1), so a row
// whose cosine is below the bar, (bar − (1 − w)) / w, is skipped before its
// skills are looked at. The bar starts at the threshold and rises to the
// worst kept hit once `limit` hits are held.
import { assertCosineWeight, COSINE_WEIGHT, combineScore, MATCH_THRESHOLD } from '../scoring/score.ts';
import { SkillStore } from './skill-store.ts';
import { compareHits, type RankedHit, TopK } from './top-k.ts';
import { SCAN_BLOCK, VectorMatrix } from './vector-matrix.ts';

/** What the rows are; the overlap is always the share of the posting's skills. */
export type IndexKind = 'candidates' | 'postings';

export interface IndexEntry {
  id: string;
  /** `dims` finite values; scaled to unit length on the way in. */
  vector: Float32Array;
  /** Canonical skill keys (`normaliseSkills`). */
  skills: readonly string[];
}

export interface SearchQuery {
  vector: Float32Array;
  skills: readonly string[];
}

export interface SearchOptions {
  /** Keep hits with score ≥ this; MATCH_THRESHOLD by default. */
  threshold?: number;
  /** Keep the best `limit`; every hit above the threshold when absent. */
  limit?: number;
  cosineWeight?: number;
}

export type SearchHit = RankedHit;

export interface VectorIndexOptions {
  kind: IndexKind;
  dims: number;
  /** The id of what produced the vectors (`ProfileEmbedder.id`); entries of another model are refused. */
  modelId: string;
  /** Rows to reserve up front (growth doubles otherwise). */
  capacity?: number;
}

// Floating-point slack on the cosine bar: a row is skipped only when it clearly cannot pass.
const BAR_SLACK = 1e-6;

export class VectorIndex {
  readonly kind: IndexKind;
  readonly dims: number;
  readonly modelId: string;
  readonly #matrix: VectorMatrix;
  readonly #skills = new SkillStore();
  readonly #ids: string[] = [];
  readonly #rows = new Map<string, number>();

  constructor(options: VectorIndexOptions) {
    if (options.kind !== 'candidates' && options.kind !== 'postings') {
      throw new RangeError(`kind must be 'candidates' or 'postings', got ${String(options.kind)}`);
    }
    if (typeof options.modelId !== 'string' || options.modelId === '') {
      throw new RangeError('modelId must be a non-empty string');
    }
    this.kind = options.kind;
    this.dims = options.dims;
    this.modelId = options.modelId;
    this.#matrix = new VectorMatrix(options.dims, options.capacity ?? 1024);
    this.#skills.reserve(this.#matrix.capacity);
  }

  get size(): number {
    return this.#ids.length;
  }

  has(id: string): boolean {
    return this.#rows.has(id);
  }

  /** Adds an entry, or replaces the one with the same id in place. */
  upsert(entry: IndexEntry, modelId = this.modelId): 'added' | 'replaced' {
    if (modelId !== this.modelId) {
      throw new RangeError(`vector of model ${modelId} given to an index of ${this.modelId}: re-embed it`);
    }
    if (typeof entry.id !== 'string' || entry.id === '')
      throw new RangeError('an entry id must be a non-empty string');
    assertSkills(entry.skills);
    const existing = this.#rows.get(entry.id);
    const row = existing ?? this.size;
    if (row >= this.#matrix.capacity) this.#grow(row + 1);
    this.#matrix.write(row, entry.vector); // validates before anything changes
    this.#skills.set(row, entry.skills, this.size);
    if (existing !== undefined) return 'replaced';
    this.#ids.push(entry.id);
    this.#rows.set(entry.id, row);
    return 'added';
  }

  /** Removes an entry (a closed posting); false when it was not there. */
  remove(id: string): boolean {
    const row = this.#rows.get(id);
    if (row === undefined) return false;
    const last = this.size - 1;
    this.#skills.clear(row);
    if (row !== last) {
      const moved = this.#ids[last]!;
      this.#matrix.move(last, row);
      this.#skills.move(last, row);
      this.#ids[row] = moved;
      this.#rows.set(moved, row);
    }
    this.#ids.pop();
    this.#rows.delete(id);
    return true;
  }

  /** The stored (unit-length) vector and skills of an entry. */
  get(id: string): IndexEntry | undefined {
    const row = this.#rows.get(id);
    if (row === undefined) return undefined;
    return { id, vector: this.#matrix.read(row), skills: this.#skills.skills(row) };
  }

  /** Reserves room for `rows` entries (e.g. before loading a tenant from Postgres). */
  reserve(rows: number): void {
    this.#matrix.reserve(rows);
    this.#skills.reserve(this.#matrix.capacity);
  }

  /** The best entries for `query` by match score, best first (ties: smaller id first). */
  search(query: SearchQuery, options: SearchOptions = {}): SearchHit[] {
    const { threshold = MATCH_THRESHOLD, limit, cosineWeight = COSINE_WEIGHT } = options;
    if (!Number.isFinite(threshold))
      throw new RangeError(`threshold must be a finite number, got ${threshold}`);
    assertCosineWeight(cosineWeight);
    assertSkills(query.skills);
    const top = limit === undefined ? undefined : new TopK<SearchHit>(limit);
    const all: SearchHit[] = [];
    const skills = this.#skills;
    const querySkills = skills.mark(query.skills);
    try {
      const { start, count: skillCount, signature, pool, marks, querySignature } = skills.arrays();
      const ids = this.#ids;
      const queryIsPosting = this.kind === 'candidates';
      // A posting without skills is scored by cosine alone: its bound is cos itself.
      const boundWeight = queryIsPosting && querySkills === 0 ? 1 : cosineWeight;
      const cosineBar = (bar: number) => (bar - (1 - boundWeight)) / boundWeight - BAR_SLACK;
      let bar = threshold; // the score a row must reach to be kept
      let minCosine = cosineBar(bar);
      const matrix = this.#matrix;
      matrix.setQuery(this.#unit(query.vector));
      for (let first = 0; first < this.size; first += SCAN_BLOCK) {
        const count = Math.min(SCAN_BLOCK, this.size - first);
        const dots = matrix.dots(first, count);
        for (let j = 0; j < count; j++) {
          const cos = dots[j]!;
          if (cos < minCosine) continue;
          const row = first + j;
          const from = start[row]!;
          const to = from + skillCount[row]!;
          let shared = 0;
          if ((signature[row]! & querySignature) !== 0) {
            for (let i = from; i < to; i++) shared += marks[pool[i]!]!;
          }
          const postingSkills = queryIsPosting ? querySkills : to - from;
          const overlap = postingSkills === 0 ? null : shared / postingSkills;
          const score = combineScore(cos, overlap, cosineWeight);
          // equal to the bar may still enter (a smaller id wins a tie): only below is out
          if (score < bar) continue;
          const hit = { id: ids[row]!, score, cosine: cos, overlap };
          if (top === undefined) all.push(hit);
          else if (top.offer(hit) && top.full) {
            bar = Math.max(threshold, top.worst!.score);
            minCosine = cosineBar(bar);
          }
        }
      }
    } finally {
      skills.unmark();
    }
    return top === undefined ? all.sort(compareHits) : top.sorted();
  }

  /**
   * Cosine of `vector` with every entry, in row order, into `out` (length ≥
   * size): the bare scan under `search`, for diagnostics and benchmarks.
   */
  dotAll(vector: Float32Array, out: Float32Array): void {
    if (out.length < this.size) throw new RangeError(`out must hold ${this.size} values`);
    this.#matrix.setQuery(this.#unit(vector));
    for (let first = 0; first < this.size; first += SCAN_BLOCK) {
      const count = Math.min(SCAN_BLOCK, this.size - first);
      out.set(this.#matrix.dots(first, count).subarray(0, count), first);
    }
  }

  /** Entry ids in row order (the order of `dotAll`). */
  ids(): readonly string[] {
    return this.#ids;
  }

  #unit(vector: Float32Array): Float32Array {
    if (!(vector instanceof Float32Array) || vector.length !== this.dims) {
      throw new RangeError(`a query vector must be a Float32Array of ${this.dims} values`);
    }
    let sum = 0;
    for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
    if (!Number.isFinite(sum)) throw new RangeError('a query vector must hold finite numbers only');
    if (sum === 0) return vector;
    const scale = 1 / Math.sqrt(sum);
    return vector.map((v) => v * scale);
  }

  #grow(rows: number): void {
    this.#matrix.reserve(Math.max(rows, this.#matrix.capacity * 2));
    this.#skills.reserve(this.#matrix.capacity);
  }
}

function assertSkills(skills: readonly string[]): void {
  if (!Array.isArray(skills) || skills.some((skill) => typeof skill !== 'string')) {
    throw new TypeError('skills must be an array of canonical skill keys (strings)');
  }
}
