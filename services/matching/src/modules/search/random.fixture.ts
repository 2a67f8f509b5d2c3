// Seeded random data for the search specs: the same "random" every run.

/** mulberry32: a tiny seeded PRNG, uniform in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randomVector(random: () => number, dims: number): Float32Array {
  return Float32Array.from({ length: dims }, () => random() * 2 - 1);
}

/** `base` plus uniform noise of amplitude `noise`: a vector near `base`. */
export function nearVector(random: () => number, base: Float32Array, noise: number): Float32Array {
  return base.map((x) => x + noise * (random() * 2 - 1));
}

const VOCABULARY = [
  'typescript',
  'nodejs',
  'postgresql',
  'redis',
  'aws',
  'docker',
  'go',
  'java',
  'react',
  'sql',
];

export function randomSkills(random: () => number, max = 5): string[] {
  const count = Math.floor(random() * (max + 1));
  return Array.from({ length: count }, () => VOCABULARY[Math.floor(random() * VOCABULARY.length)]!);
}
