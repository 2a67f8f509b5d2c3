// The best `limit` hits of a scan, kept in a bounded binary heap whose root
// is the worst kept hit: a scan of n rows costs O(n log limit) at worst and
// nearly nothing for rows that cannot beat the root. Order: higher score
// first, then smaller id, so equal scores come out the same on every run.

export interface RankedHit {
  id: string;
  score: number;
  cosine: number;
  overlap: number | null;
}

/** True when `a` ranks below `b`. */
export function ranksBelow(a: RankedHit, b: RankedHit): boolean {
  return a.score < b.score || (a.score === b.score && a.id > b.id);
}

export function compareHits(a: RankedHit, b: RankedHit): number {
  if (a.score !== b.score) return b.score - a.score;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

export class TopK<T extends RankedHit> {
  readonly limit: number;
  readonly #heap: T[] = [];

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new RangeError(`limit must be a positive integer, got ${limit}`);
    this.limit = limit;
  }

  get full(): boolean {
    return this.#heap.length === this.limit;
  }

  /** The worst kept hit (the bar a new hit must beat once full). */
  get worst(): T | undefined {
    return this.#heap[0];
  }

  /** Keeps `hit` if there is room or it ranks above the worst kept; true when kept. */
  offer(hit: T): boolean {
    const heap = this.#heap;
    if (heap.length < this.limit) {
      heap.push(hit);
      this.#up(heap.length - 1);
      return true;
    }
    if (!ranksBelow(heap[0]!, hit)) return false;
    heap[0] = hit;
    this.#down(0);
    return true;
  }

  /** The kept hits, best first. */
  sorted(): T[] {
    return [...this.#heap].sort(compareHits);
  }

  #up(index: number): void {
    const heap = this.#heap;
    let i = index;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!ranksBelow(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  #down(index: number): void {
    const heap = this.#heap;
    let i = index;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let worst = i;
      if (left < heap.length && ranksBelow(heap[left]!, heap[worst]!)) worst = left;
      if (right < heap.length && ranksBelow(heap[right]!, heap[worst]!)) worst = right;
      if (worst === i) return;
      [heap[i], heap[worst]] = [heap[worst]!, heap[i]!];
      i = worst;
    }
  }
}
