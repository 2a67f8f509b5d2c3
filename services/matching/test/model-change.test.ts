import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Embedder, FeatureHashingEmbedder, ProfileEmbedder } from '../src/modules/index.ts';
import {
  insertCandidate,
  lockTenant,
  markCandidateComputed,
  storeCandidateVector,
} from '../src/modules/profiles/store.ts';
import { type MatchingHarness, startMatchingHarness } from './harness.ts';
import { fitting, role } from './profiles.ts';

// Another model: the same features, every vector negated. Cosines between
// two of its vectors are unchanged; between one of each model they flip
// sign, so a stored vector that was not re-embedded could never match.
const inner = new FeatureHashingEmbedder();
const otherModel: Embedder = {
  id: 'negated-feature-hash-384',
  dims: inner.dims,
  embed: async (texts) => (await inner.embed(texts)).map((v) => v.map((x) => -x)),
};

let h: MatchingHarness;
beforeAll(async () => {
  h = await startMatchingHarness('matching-model');
  await h.startWorker({ embedder: otherModel });
});
afterAll(async () => {
  await h?.close();
});

const modelsOf = async (table: 'candidate' | 'posting', tenantId: string) =>
  (
    await h.deps.orm.em
      .fork()
      .execute<{ model_id: string }[]>(`SELECT DISTINCT model_id FROM ${table} WHERE tenant_id = ?`, [
        tenantId,
      ])
  ).map((r) => r.model_id);

/** Candidates as a worker of the previous model stored and computed them. */
async function storedByPreviousModel(tenantId: string) {
  const previous = new ProfileEmbedder(new FeatureHashingEmbedder());
  const profiles = await previous.embedCandidates(fitting);
  for (const [i, profile] of profiles.entries()) {
    const candidateId = randomUUID();
    await h.deps.orm.em.fork().transactional(async (tx) => {
      await insertCandidate(tx, { candidateId, tenantId, ...fitting[i]!, eventId: randomUUID() });
      await lockTenant(tx, tenantId);
      await storeCandidateVector(tx, tenantId, candidateId, profile);
      await markCandidateComputed(tx, candidateId, new Date());
    });
  }
  return previous.id;
}

describe('a change of embedding model', () => {
  it('re-embeds the stored vectors of another model as a worker loads them, never mixing the two', async () => {
    const tenantId = randomUUID();
    const previousId = await storedByPreviousModel(tenantId);
    expect(await modelsOf('candidate', tenantId)).toEqual([previousId]);

    const posted = role(tenantId);
    await h.publish(posted);
    const [computation] = await h.waitForComputations({ id: posted.data.jobId });
    expect(computation).toMatchObject({ outcome: 'computed', newMatches: 3 });
    expect(await modelsOf('candidate', tenantId)).toEqual(['negated-feature-hash-384+fields-v1']);
    expect(await modelsOf('posting', tenantId)).toEqual(['negated-feature-hash-384+fields-v1']);
  });
});
