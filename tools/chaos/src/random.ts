// Every random choice of a chaos run comes from one seed, so a failing run
// can be replayed: the workload, the fault schedule and the ids it sends.

export interface Random {
  /** In [0, 1). */
  next(): number;
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
  /** A v4-shaped UUID drawn from the seed. */
  uuid(): string;
  /** A weighted choice: `{ a: 3, b: 1 }` picks a three times as often as b. */
  weighted<K extends string>(weights: Record<K, number>): K;
  /** An independent stream for one part of the run (workload, faults), stable when another part changes. */
  fork(label: string): Random;
}

/** mulberry32: small, fast, good enough to draw a workload (not for secrets). */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const random: Random = {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => items[Math.floor(next() * items.length)]!,
    chance: (p) => next() < p,
    uuid() {
      const hex = Array.from({ length: 32 }, () => Math.floor(next() * 16).toString(16));
      hex[12] = '4';
      hex[16] = ((Math.floor(next() * 4) + 8) as number).toString(16);
      const s = hex.join('');
      return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
    },
    weighted(weights) {
      const entries = Object.entries(weights) as [keyof typeof weights, number][];
      const total = entries.reduce((sum, [, w]) => sum + w, 0);
      let draw = next() * total;
      for (const [key, weight] of entries) {
        draw -= weight;
        if (draw < 0) return key;
      }
      return entries[entries.length - 1]![0];
    },
    fork(label) {
      let hash = seed >>> 0;
      for (const ch of label) hash = Math.imul(hash ^ ch.charCodeAt(0), 0x01000193) >>> 0;
      return seededRandom(hash);
    },
  };
  return random;
}
