// A fixed 32-bit hash of our own (FNV-1a over UTF-16 code units, then
// murmur3's finaliser to spread FNV's weak low bits), so a feature lands in
// the same dimension in every process, on every Node version, forever: a
// stored vector stays comparable with one computed tomorrow.

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** Starts a hash; `tag` separates feature kinds (a word and a trigram that read alike). */
export function hashStart(tag: number): number {
  return Math.imul(FNV_OFFSET ^ tag, FNV_PRIME);
}

/** Feeds `text[start, end)` into a running hash. */
export function hashFeed(hash: number, text: string, start = 0, end = text.length): number {
  let h = hash;
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME);
  return h;
}

/** Feeds one code unit (a separator) into a running hash. */
export function hashFeedCode(hash: number, code: number): number {
  return Math.imul(hash ^ code, FNV_PRIME);
}

/** murmur3's fmix32: every input bit reaches every output bit. Unsigned result. */
export function hashFinish(hash: number): number {
  let h = hash;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
