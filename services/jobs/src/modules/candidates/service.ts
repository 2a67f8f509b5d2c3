import { randomUUID } from 'node:crypto';
import { createEvent } from '@hireflow/contracts';
import type { EntityManager } from '@hireflow/db';
import { enqueueEvent } from '@hireflow/messaging';
import { Candidate, type CandidateEntity } from '../../db/entities.ts';

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
  em: EntityManager,
  tenantId: string,
  input: NewCandidate,
): Promise<{ candidate: CandidateEntity; created: boolean }> {
  return em.transactional(async (tx) => {
    const id = randomUUID();
    const createdAt = new Date();
    // The unique index decides between concurrent registrations of one email.
    const inserted = await tx.execute<{ id: string }[]>(
      `INSERT INTO candidate (id, tenant_id, name, email, headline, skills, location, created_at)
       VALUES (?, ?, ?, ?, ?, ?::jsonb, ?, ?)
       ON CONFLICT (tenant_id, lower(email)) DO NOTHING
       RETURNING id`,
      [
        id,
        tenantId,
        input.name,
        input.email,
        input.headline,
        JSON.stringify(input.skills),
        input.location,
        createdAt,
      ],
    );
    if (inserted.length === 0) {
      const existing = await tx.execute<{ id: string }[]>(
        'SELECT id FROM candidate WHERE tenant_id = ? AND lower(email) = lower(?)',
        [tenantId, input.email],
      );
      return { candidate: await tx.findOneOrFail(Candidate, { id: existing[0]!.id }), created: false };
    }
    enqueueEvent(
      tx,
      createEvent(
        'candidate.registered.v1',
        { candidateId: id, tenantId, ...input },
        { source: 'hireflow/jobs', subject: id },
      ),
    );
    return { candidate: await tx.findOneOrFail(Candidate, { id }), created: true };
  });
}

export function candidateView(candidate: CandidateEntity) {
  return {
    id: candidate.id,
    status: 'registered' as const,
    name: candidate.name,
    email: candidate.email,
    headline: candidate.headline,
    skills: candidate.skills,
    location: candidate.location,
    registeredAt: candidate.createdAt.toISOString(),
  };
}
