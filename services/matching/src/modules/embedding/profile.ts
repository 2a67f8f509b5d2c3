// A posting or a candidate as one vector: each field embedded on its own by
// any `Embedder`, the unit vectors summed by field weight, the sum
// re-normalised. Field by field, so a 20k-character description cannot drown
// a five-word title, and a real model (which truncates long inputs) sees each
// field whole. Only what describes the work is embedded: never a candidate's
// name or email (personal data), nor location (a filter, not a similarity).

import { normaliseSkills } from '../skills/skills.ts';
import { type Embedder, l2Normalise } from './embedder.ts';

export interface WeightedField {
  text: string;
  weight: number;
}

/** What matching reads of a `job.posted.v1`. */
export interface PostingText {
  title: string;
  description: string;
  skills: readonly string[];
}

/** What matching reads of a `candidate.registered.v1` (no name, no email). */
export interface CandidateText {
  headline: string;
  skills: readonly string[];
}

/** A profile ready for the index: its vector, canonical skills, and the id of what produced the vector. */
export interface EmbeddedProfile {
  vector: Float32Array;
  skills: string[];
  modelId: string;
}

// Titles and headlines say what the job is; skills say what it takes; a
// description is long and mostly context. Candidates have no description.
export const POSTING_FIELD_WEIGHTS = { title: 0.35, description: 0.2, skills: 0.45 } as const;
export const CANDIDATE_FIELD_WEIGHTS = { headline: 0.5, skills: 0.5 } as const;
// Bump when the weights or the choice of fields change: stored vectors then re-embed.
const FIELDS_VERSION = 'fields-v1';

export function postingFields(posting: PostingText): WeightedField[] {
  return [
    { text: posting.title, weight: POSTING_FIELD_WEIGHTS.title },
    { text: posting.description, weight: POSTING_FIELD_WEIGHTS.description },
    { text: skillsText(posting.skills), weight: POSTING_FIELD_WEIGHTS.skills },
  ];
}

export function candidateFields(candidate: CandidateText): WeightedField[] {
  return [
    { text: candidate.headline, weight: CANDIDATE_FIELD_WEIGHTS.headline },
    { text: skillsText(candidate.skills), weight: CANDIDATE_FIELD_WEIGHTS.skills },
  ];
}

// Commas end a phrase for the tokeniser: no word pair spans two skills.
function skillsText(skills: readonly string[]): string {
  if (!Array.isArray(skills)) throw new TypeError('skills must be an array of strings');
  return skills.join(', ');
}

/**
 * Embeds documents made of weighted fields with one `embed` call (a model
 * batches it). A blank field is left out rather than embedded as noise, so
 * the other fields share its weight.
 */
export async function embedFieldDocuments(
  embedder: Embedder,
  documents: readonly (readonly WeightedField[])[],
): Promise<Float32Array[]> {
  const texts: string[] = [];
  for (const fields of documents) {
    for (const field of fields) {
      if (typeof field.text !== 'string') throw new TypeError('a field text must be a string');
      if (!Number.isFinite(field.weight) || field.weight < 0) {
        throw new RangeError(`a field weight must be a finite number ≥ 0, got ${field.weight}`);
      }
      if (field.text.trim() !== '' && field.weight > 0) texts.push(field.text);
    }
  }
  const vectors = texts.length === 0 ? [] : await embedder.embed(texts);
  let next = 0;
  return documents.map((fields) => {
    const sum = new Float32Array(embedder.dims);
    for (const field of fields) {
      if (field.text.trim() === '' || field.weight === 0) continue;
      const vector = vectors[next++];
      if (vector?.length !== embedder.dims) {
        throw new Error(`embedder ${embedder.id} returned a vector of the wrong length`);
      }
      for (let i = 0; i < sum.length; i++) sum[i]! += field.weight * vector[i]!;
    }
    return l2Normalise(sum);
  });
}

/** Postings and candidates → index-ready profiles, with any `Embedder`. */
export class ProfileEmbedder {
  /** Stored beside each vector: the embedder's id and the field layout. */
  readonly id: string;
  readonly dims: number;
  readonly #embedder: Embedder;

  constructor(embedder: Embedder) {
    this.#embedder = embedder;
    this.id = `${embedder.id}+${FIELDS_VERSION}`;
    this.dims = embedder.dims;
  }

  async embedPostings(postings: readonly PostingText[]): Promise<EmbeddedProfile[]> {
    const vectors = await embedFieldDocuments(this.#embedder, postings.map(postingFields));
    return vectors.map((vector, i) => this.#profile(vector, postings[i]!.skills));
  }

  async embedCandidates(candidates: readonly CandidateText[]): Promise<EmbeddedProfile[]> {
    const vectors = await embedFieldDocuments(this.#embedder, candidates.map(candidateFields));
    return vectors.map((vector, i) => this.#profile(vector, candidates[i]!.skills));
  }

  #profile(vector: Float32Array, skills: readonly string[]): EmbeddedProfile {
    return { vector, skills: normaliseSkills(skills), modelId: this.id };
  }
}
