// A v2 of job.posted for tests of versioning (docs/contracts.md): no current
// event needs a v2, so this catalog, Hireflow's plus `job.posted.v2`, is the
// fixture. v2 makes the two changes v1 cannot take: `jobId` renamed
// `postingId` (the word the code uses), and `remote: boolean` replaced by
// `workplace` (remote, hybrid or on site). v1 is deprecated, published beside
// v2 until its sunset, and upcast for consumers that handle only v2.
import { randomUUID } from 'node:crypto';
import {
  type CloudEventOf,
  type DataOf,
  defineEventContracts,
  type EventContracts,
  eventCatalog,
  jobPostedData,
} from '@hireflow/contracts';
import { z } from 'zod';

export const jobPostedV2Data = jobPostedData.omit({ jobId: true, remote: true }).extend({
  postingId: z.uuid(),
  workplace: z.enum(['remote', 'hybrid', 'onsite']),
});

export const versionedCatalog = {
  ...eventCatalog,
  'job.posted.v2': {
    data: jobPostedV2Data,
    topic: 'jobs-events',
    producer: 'jobs',
    description: 'A recruiter published a job posting.',
  },
} as const;

export type VersionedCatalog = typeof versionedCatalog;

/** The fixture's sunset: half a year from the day the tests run, so the window is always open. */
export const FIXTURE_SUNSET = new Date(Date.now() + 183 * 24 * 3600 * 1000).toISOString().slice(0, 10);

export const versionedEvents: EventContracts<VersionedCatalog> = defineEventContracts(versionedCatalog, {
  'job.posted.v1': {
    replacedBy: 'job.posted.v2',
    sunset: FIXTURE_SUNSET,
    // Hybrid was "remote: true" in v1's terms: v1 has no word for it, and
    // v1 consumers treated any remote share as remote.
    downcast: ({ postingId, workplace, ...rest }) => ({
      ...rest,
      jobId: postingId,
      remote: workplace !== 'onsite',
    }),
    upcast: ({ jobId, remote, ...rest }) => ({
      ...rest,
      postingId: jobId,
      workplace: remote ? 'remote' : 'onsite',
    }),
  },
});

/** A valid job.posted.v2 of the fixture catalog. */
export function jobPostedV2(
  data: Partial<DataOf<VersionedCatalog, 'job.posted.v2'>> = {},
): CloudEventOf<VersionedCatalog, 'job.posted.v2'> {
  const postingId = data.postingId ?? randomUUID();
  return versionedEvents.create(
    'job.posted.v2',
    {
      postingId,
      tenantId: randomUUID(),
      title: 'Backend engineer',
      description: 'Queues all day.',
      skills: ['node'],
      location: 'Berlin',
      workplace: 'hybrid',
      contactEmail: 'jobs@example.com',
      postedAt: new Date().toISOString(),
      ...data,
    },
    { source: 'hireflow/jobs', subject: postingId },
  );
}
