import { randomUUID } from 'node:crypto';
import { type CloudEvent, createEvent, type EventData } from '@hireflow/contracts';

// Events as the services publish them, for tests and benchmarks of their consumers.

const source = { jobs: 'hireflow/jobs', matching: 'hireflow/matching' } as const;

export function candidateRegistered(
  tenantId: string,
  data: Partial<EventData<'candidate.registered.v1'>> = {},
): CloudEvent<'candidate.registered.v1'> {
  const candidateId = data.candidateId ?? randomUUID();
  return createEvent(
    'candidate.registered.v1',
    {
      candidateId,
      tenantId,
      name: 'Ada Lovelace',
      email: `ada-${candidateId.slice(0, 8)}@example.test`,
      headline: 'Engineer',
      skills: ['node'],
      location: 'London',
      ...data,
    },
    { source: source.jobs, subject: candidateId },
  );
}

export function jobPosted(tenantId: string, data: Partial<EventData<'job.posted.v1'>> = {}) {
  const postingId = data.jobId ?? randomUUID();
  return createEvent(
    'job.posted.v1',
    {
      jobId: postingId,
      tenantId,
      title: 'Backend engineer',
      description: 'Node.js, Postgres, event-driven systems.',
      skills: ['node', 'postgres'],
      location: 'Berlin',
      remote: true,
      contactEmail: `recruiter-${postingId.slice(0, 8)}@example.test`,
      // As jobs says of a tenant's own contact address: summaries need no confirmation.
      contactVerified: true,
      postedAt: new Date().toISOString(),
      ...data,
    },
    { source: source.jobs, subject: postingId },
  );
}

export function matchFound(tenantId: string, postingId: string, candidateId: string, score = 0.87) {
  return createEvent(
    'match.found.v1',
    { matchId: randomUUID(), jobId: postingId, candidateId, tenantId, score },
    { source: source.matching, subject: postingId },
  );
}

export function jobMatched(tenantId: string, postingId: string, matchCount: number) {
  return createEvent(
    'job.matched.v1',
    { jobId: postingId, tenantId, matchCount, computedAt: new Date().toISOString() },
    { source: source.matching, subject: postingId },
  );
}
