// The seam between matching and whatever turns text into vectors.
//
// The default is `FeatureHashingEmbedder`: deterministic, no weights, no
// download. A real sentence model plugs in here as another `Embedder`, e.g.
// a local ONNX export of all-MiniLM-L6-v2 (384 dims) run by
// `@huggingface/transformers` with `env.allowRemoteModels = false` and
// `env.localModelPath` pointing at weights shipped in the image:
//
//   const extract = await pipeline('feature-extraction', 'all-MiniLM-L6-v2');
//   embed: async (texts) => {
//     const out = await extract([...texts], { pooling: 'mean', normalize: true });
//     return out.tolist().map((row) => Float32Array.from(row));
//   }
//
// with `id` naming the model and its revision (e.g. `minilm-l6-v2@<sha>-384`).
// Nothing else changes: documents are embedded field by field through
// `ProfileEmbedder`, vectors are stored with the embedder's id, and a stored
// vector whose id differs from the running embedder's is re-embedded.

export interface Embedder {
  /** Names the model and everything that changes its output; stored beside each vector. */
  readonly id: string;
  /** Length of every vector it returns. */
  readonly dims: number;
  /** One L2-normalised vector per text, in order (a text with no features gives the zero vector). */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

/** Scales `vector` in place to unit length; the zero vector stays zero. Returns it. */
export function l2Normalise(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  if (sum === 0) return vector;
  const scale = 1 / Math.sqrt(sum);
  for (let i = 0; i < vector.length; i++) vector[i]! *= scale;
  return vector;
}

/** Plain dot product of two vectors of one length (= cosine when both are unit length). */
export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new RangeError(`vector lengths differ: ${a.length} and ${b.length}`);
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}
