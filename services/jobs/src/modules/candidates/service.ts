import { randomUUID } from 'node:crypto';
import { type CloudEvent, createEvent, type EventLane } from '@hireflow/contracts';
import type { Sql } from '@hireflow/db';
import { enqueueEvent } from '@hireflow/messaging';
import { type Candidate, findCandidate, insertCandidate } from './store.ts';

export interface NewCandidate {
  name: string;
  email: string;
  headline: string;
  skills: string[];
  location: string;
}

/**
 * Registers a candidate and emits `candidate.registered.v1` in one
 * transaction. A candidate is unique per tenant by email (case-insensitive):
 * registering the same email again returns the existing candidate and emits
 * nothing, so a client's retry never sends a second welcome email.
 */
export async function registerCandidate(
  em: Sql,
  tenantId: string,
  input: NewCandidate,
): Promise<{ candidate: Candidate; created: boolean }> {
  return em.transactional(async (tx) => {
    const { id, created } = await insertWithEvent(tx, tenantId, input);
    return { candidate: (await findCandidate(tx, tenantId, id))!, created };
  });
}

/** The candidate and, when new, its `candidate.registered.v1`, in `tx`. */
async function insertWithEvent(
  tx: Sql,
  tenantId: string,
  input: NewCandidate,
): Promise<{ id: string; created: boolean }> {
  const { id, created, event } = await insertCandidateOf(tx, tenantId, input);
  if (event) await enqueueEvent(tx, event);
  return { id, created };
}

/**
 * The candidate, in `tx`, and when new the `candidate.registered.v1` that
 * announces it, not yet written: the caller writes it to the outbox in the
 * same transaction (a batch's chunk writes its events in one INSERT). `bulk`
 * (an import's) puts what the event causes downstream in the bulk lane (docs/fairness.md).
 */
export async function insertCandidateOf(
  tx: Sql,
  tenantId: string,
  input: NewCandidate,
  options: { lane?: EventLane } = {},
): Promise<{ id: string; created: boolean; event: CloudEvent<'candidate.registered.v1'> | null }> {
  const { id, created } = await insertCandidate(tx, {
    id: randomUUID(),
    tenantId,
    ...input,
    createdAt: new Date(),
  });
  const event = created
    ? createEvent(
        'candidate.registered.v1',
        { candidateId: id, tenantId, ...input },
        { source: 'hireflow/jobs', subject: id, ...(options.lane ? { lane: options.lane } : {}) },
      )
    : null;
  return { id, created, event };
}

/** The API's view of a candidate. */
export function toCandidateView(candidate: Candidate) {
  return {
    id: candidate.id,
    status: 'registered' as const,
    name: candidate.name,
    email: candidate.email,
    headline: candidate.headline,
    skills: candidate.skills,
    location: candidate.location,
    photo: candidate.photo ?? null,
    registeredAt: candidate.createdAt.toISOString(),
  };
}
