/**
 * The last `size` handler durations, for percentiles. A fixed ring is enough:
 * the visibility timeout follows recent behaviour, and p99 of 1024 samples
 * is stable while costing nothing to record.
 */
export class DurationWindow {
  readonly #samples: number[] = [];
  readonly #size: number;
  #next = 0;

  constructor(size = 1024) {
    this.#size = size;
  }

  record(ms: number): void {
    if (this.#samples.length < this.#size) this.#samples.push(ms);
    else this.#samples[this.#next] = ms;
    this.#next = (this.#next + 1) % this.#size;
  }

  get count(): number {
    return this.#samples.length;
  }

  /** Nearest-rank percentile (0..100); undefined before any sample. */
  percentile(p: number): number | undefined {
    if (this.#samples.length === 0) return undefined;
    const sorted = [...this.#samples].sort((a, b) => a - b);
    const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
    return sorted[rank];
  }
}
