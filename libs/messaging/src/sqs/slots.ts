/**
 * Handler slots shared by the consumers of one process: the inbox's two lanes
 * (docs/fairness.md, "One pool of slots for both lanes"). Together they run at
 * most `size` handlers, not `size` each; a consumer may be told to leave
 * `reserve` of them to the others (the bulk lane leaves some to the
 * interactive one), and a freed slot is offered to the consumers in the order
 * they subscribed (the interactive lane first).
 */
export class SharedSlots {
  readonly size: number;
  #used = 0;
  readonly #listeners: (() => void)[] = [];

  constructor(size: number) {
    this.size = Math.max(1, size);
  }

  /** Slots in use, all consumers together. */
  get used(): number {
    return this.#used;
  }

  /** Slots free for a consumer that leaves `reserve` to the others. */
  available(reserve = 0): number {
    return Math.max(0, this.size - reserve - this.#used);
  }

  take(): void {
    this.#used += 1;
  }

  /** Frees a slot and offers it to each consumer in turn. */
  give(): void {
    this.#used = Math.max(0, this.#used - 1);
    for (const listener of this.#listeners) listener();
  }

  /** Called whenever a slot is freed; the first subscribed is offered it first. */
  subscribe(listener: () => void): void {
    this.#listeners.push(listener);
  }
}

/**
 * What the bulk lane leaves to the interactive one: a tenth of the slots, at
 * least one, never all (the bulk lane alone keeps 90% of a process's
 * throughput; an interactive event always finds a slot at once).
 */
export function interactiveReserve(size: number): number {
  return Math.max(0, Math.min(size - 1, Math.max(1, Math.floor(size / 10))));
}
