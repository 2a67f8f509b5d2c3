import { randomUUID } from 'node:crypto';
import { createEvent } from '@hireflow/contracts';
import type { Sql } from '@hireflow/db';
import { enqueueEvent, outboxInsertStatement } from '@hireflow/messaging';
import {
  insertPostingWithEvent,
  lockPosting,
  markPostingClosed,
  overduePostings,
  type Posting,
} from './store.ts';

const SOURCE = 'hireflow/jobs' as const;

export interface NewPosting {
  title: string;
  description: string;
  skills: string[];
  location: string;
  remote: boolean;
  contactEmail?: string | undefined;
}

/**
 * Writes the posting and its `job.posted.v1` outbox row in one statement
 * (atomic, one round trip, no unit of work on this hot path). A posting whose
 * id exists already (the id derives from an Idempotency-Key) is left as it is
 * and nothing is emitted: `created` is false.
 */
export async function createPosting(
  em: Sql,
  tenant: { tenantId: string; contactEmail: string },
  input: NewPosting,
  autoCloseAfterMs: number,
  id: string = randomUUID(),
): Promise<{ id: string; created: boolean }> {
  const { tenantId } = tenant;
  const contactEmail = input.contactEmail ?? tenant.contactEmail;
  const postedAt = new Date();
  const closeAt = new Date(postedAt.getTime() + autoCloseAfterMs);
  const event = createEvent(
    'job.posted.v1',
    {
      jobId: id,
      tenantId,
      title: input.title,
      description: input.description,
      skills: input.skills,
      location: input.location,
      remote: input.remote,
      contactEmail,
      // The tenant's contact was given by the operator who created the tenant;
      // any other address confirms itself before summaries go there.
      contactVerified: contactEmail.toLowerCase() === tenant.contactEmail.toLowerCase(),
      postedAt: postedAt.toISOString(),
    },
    { source: SOURCE, subject: id },
  );
  const created = await insertPostingWithEvent(
    em,
    { id, tenantId, ...input, contactEmail, postedAt, closeAt },
    outboxInsertStatement(event, { from: 'posting' }),
  );
  return { id, created };
}

/**
 * Closes a posting and emits `job.closed.v1`, once: the row is locked, and a
 * posting already closed is returned as it is with `changed: false`.
 * Returns null when the tenant has no such posting.
 */
export async function closePosting(
  em: Sql,
  tenantId: string,
  postingId: string,
): Promise<{ posting: Posting; changed: boolean } | null> {
  return em.transactional(async (tx) => {
    const posting = await lockPosting(tx, tenantId, postingId);
    if (!posting) return null;
    if (posting.status === 'closed') return { posting, changed: false };
    const now = new Date();
    await markPostingClosed(tx, tenantId, postingId, now);
    await enqueueEvent(
      tx,
      createEvent(
        'job.closed.v1',
        { jobId: postingId, tenantId, closedAt: now.toISOString() },
        { source: SOURCE, subject: postingId },
      ),
    );
    return { posting: { ...posting, status: 'closed', closedAt: now }, changed: true };
  });
}

/**
 * Up to `limit` open postings past their close_at, closed (the worker's
 * periodic sweep: how every posting closes itself).
 */
export async function closeOverduePostings(em: Sql, limit = 100): Promise<string[]> {
  const closed: string[] = [];
  for (const row of await overduePostings(em, limit)) {
    if ((await closePosting(em.fork(), row.tenant_id, row.id))?.changed) closed.push(row.id);
  }
  return closed;
}

/** The API's view of a posting. */
export function toPostingView(posting: Posting) {
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
