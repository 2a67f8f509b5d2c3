// Signed feature hashing ("the hashing trick"): every word, adjacent word
// pair and character trigram of the normalised text is hashed to one of
// `dims` dimensions with a sign of its own (so collisions cancel out on
// average rather than pile up), weighted by its kind and by 1 + ln(tf), and
// the vector is L2-normalised. Texts sharing vocabulary get a high cosine;
// trigrams carry near-spellings ("engineer"/"engineering"); pairs carry
// phrases ("backend engineer" vs "engineer backend" of unrelated sentences).
import { type Embedder, l2Normalise } from './embedder.ts';
import { hashFeed, hashFeedCode, hashFinish, hashStart } from './hash.ts';
import { phrases } from './text.ts';

/** How much one occurrence of each kind of feature weighs (before 1 + ln tf). */
export const FEATURE_WEIGHTS = { word: 1, pair: 0.6, trigram: 0.25 } as const;

const WORD_TAG = 0x77; // 'w'
const PAIR_TAG = 0x70; // 'p'
const TRIGRAM_TAG = 0x74; // 't'
const WORD_START = 0x02;
const WORD_END = 0x03;
const SPACE = 0x20;

export interface FeatureHashingOptions {
  /** Vector length; 384 by default (the size of the small sentence models, so a switch keeps storage alike). */
  dims?: number;
}

export class FeatureHashingEmbedder implements Embedder {
  readonly id: string;
  readonly dims: number;

  constructor(options: FeatureHashingOptions = {}) {
    const dims = options.dims ?? 384;
    if (!Number.isInteger(dims) || dims < 8 || dims > 65_536) {
      throw new RangeError(`dims must be an integer in [8, 65536], got ${dims}`);
    }
    this.dims = dims;
    // "v1" names the tokeniser, alias table, stop words, hash and weights: change any, bump it.
    this.id = `feature-hash-v1-${dims}`;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (!Array.isArray(texts)) throw new TypeError('embed() takes an array of strings');
    return texts.map((text) => this.embedText(text));
  }

  /** The synchronous core of `embed`, for one text. */
  embedText(text: string): Float32Array {
    if (typeof text !== 'string') throw new TypeError('embed() takes an array of strings');
    const words = new Map<number, number>();
    const pairs = new Map<number, number>();
    const trigrams = new Map<number, number>();
    for (const phrase of phrases(text)) {
      let previous = '';
      for (const word of phrase) {
        countInto(words, hashFeed(hashStart(WORD_TAG), word));
        if (previous !== '') {
          countInto(pairs, hashFeed(hashFeedCode(hashFeed(hashStart(PAIR_TAG), previous), SPACE), word));
        }
        previous = word;
        const padded = String.fromCharCode(WORD_START) + word + String.fromCharCode(WORD_END);
        for (let i = 0; i + 3 <= padded.length; i++) {
          countInto(trigrams, hashFeed(hashStart(TRIGRAM_TAG), padded, i, i + 3));
        }
      }
    }
    const vector = new Float32Array(this.dims);
    this.#accumulate(vector, words, FEATURE_WEIGHTS.word);
    this.#accumulate(vector, pairs, FEATURE_WEIGHTS.pair);
    this.#accumulate(vector, trigrams, FEATURE_WEIGHTS.trigram);
    return l2Normalise(vector);
  }

  #accumulate(vector: Float32Array, counts: Map<number, number>, weight: number): void {
    for (const [hash, tf] of counts) {
      const mixed = hashFinish(hash);
      // the low bit picks the sign, the rest the dimension
      const dim = (mixed >>> 1) % this.dims;
      const value = weight * (1 + Math.log(tf));
      vector[dim]! += mixed & 1 ? -value : value;
    }
  }
}

function countInto(counts: Map<number, number>, hash: number): void {
  counts.set(hash, (counts.get(hash) ?? 0) + 1);
}
