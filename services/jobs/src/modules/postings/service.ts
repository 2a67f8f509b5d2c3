import { randomUUID } from 'node:crypto';
import { createEvent } from '@hireflow/contracts';
import type { EntityManager } from '@hireflow/db';
import { enqueueEvent } from '@hireflow/messaging';
import { LockMode } from '@mikro-orm/core';
import { JobPosting, type JobPostingEntity } from '../../db/entities.ts';

const SOURCE = 'hireflow/jobs' as const;

export interface NewPosting {
  title: string;
  description: string;
  skills: string[];
  location: string;
  remote: boolean;
  contactEmail?: string | undefined;
}

/** Writes the posting and its `job.posted.v1` in one transaction (outbox). */
export async function postJob(
  em: EntityManager,
  tenant: { tenantId: string; contactEmail: string },
  input: NewPosting,
  autoCloseAfterMs: number,
): Promise<JobPostingEntity> {
  const { tenantId } = tenant;
  return em.transactional(async (tx) => {
    const contactEmail = input.contactEmail ?? tenant.contactEmail;
    const now = new Date();
    const posting = tx.create(JobPosting, {
      id: randomUUID(),
      tenantId,
      title: input.title,
      description: input.description,
      skills: input.skills,
      location: input.location,
      remote: input.remote,
      contactEmail,
      status: 'processing',
      matchCount: null,
      matchesComputedAt: null,
      logo: null,
      postedAt: now,
      closeAt: new Date(now.getTime() + autoCloseAfterMs),
      closedAt: null,
      updatedAt: now,
    });
    enqueueEvent(
      tx,
      createEvent(
        'job.posted.v1',
        {
          jobId: posting.id,
          tenantId,
          title: posting.title,
          description: posting.description,
          skills: posting.skills,
          location: posting.location,
          remote: posting.remote,
          contactEmail,
          postedAt: now.toISOString(),
        },
        { source: SOURCE, subject: posting.id },
      ),
    );
    return posting;
  });
}

/**
 * Closes a posting and emits `job.closed.v1`, once: the row is locked, and a
 * posting already closed is returned as it is with `changed: false`.
 * Returns null when the tenant has no such posting.
 */
export async function closeJob(
  em: EntityManager,
  tenantId: string,
  jobId: string,
): Promise<{ posting: JobPostingEntity; changed: boolean } | null> {
  return em.transactional(async (tx) => {
    const posting = await tx.findOne(
      JobPosting,
      { id: jobId, tenantId },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (!posting) return null;
    if (posting.status === 'closed') return { posting, changed: false };
    const now = new Date();
    posting.status = 'closed';
    posting.closedAt = now;
    posting.updatedAt = now;
    enqueueEvent(
      tx,
      createEvent(
        'job.closed.v1',
        { jobId, tenantId, closedAt: now.toISOString() },
        { source: SOURCE, subject: jobId },
      ),
    );
    return { posting, changed: true };
  });
}

export function postingView(posting: JobPostingEntity) {
  return {
    id: posting.id,
    status: posting.status,
    title: posting.title,
    description: posting.description,
    skills: posting.skills,
    location: posting.location,
    remote: posting.remote,
    contactEmail: posting.contactEmail,
    matchCount: posting.matchCount ?? null,
    logo: posting.logo ?? null,
    postedAt: posting.postedAt.toISOString(),
    closesAt: posting.closeAt.toISOString(),
    closedAt: posting.closedAt?.toISOString() ?? null,
  };
}
