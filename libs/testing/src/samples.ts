import { randomUUID } from 'node:crypto';
import {
  type CloudEvent,
  createEvent,
  type EventData,
  type EventType,
  eventCatalog,
} from '@hireflow/contracts';

// A valid event of every type in the catalog, as its producer would send it:
// what a generated subscriber's test publishes (docs/subscribing.md). The
// mapped type makes a new event type a compile error here until it has one.

const now = () => new Date().toISOString();

const samples: { [T in EventType]: () => EventData<T> } = {
  'job.posted.v1': () => ({
    jobId: randomUUID(),
    tenantId: randomUUID(),
    title: 'Backend engineer',
    description: 'Node.js, Postgres, event-driven systems.',
    skills: ['node', 'postgres'],
    location: 'Berlin',
    remote: true,
    contactEmail: 'recruiter@example.test',
    postedAt: now(),
  }),
  'job.closed.v1': () => ({ jobId: randomUUID(), tenantId: randomUUID(), closedAt: now() }),
  'candidate.registered.v1': () => ({
    candidateId: randomUUID(),
    tenantId: randomUUID(),
    name: 'Ada Lovelace',
    email: 'ada@example.test',
    headline: 'Engineer',
    skills: ['node'],
    location: 'London',
  }),
  'apikey.issued.v1': () => ({
    keyId: randomUUID(),
    tenantId: randomUUID(),
    keyHash: 'a'.repeat(64),
    issuedAt: now(),
  }),
  'apikey.revoked.v1': () => ({ keyId: randomUUID(), tenantId: randomUUID(), revokedAt: now() }),
  'match.found.v1': () => ({
    matchId: randomUUID(),
    jobId: randomUUID(),
    candidateId: randomUUID(),
    tenantId: randomUUID(),
    score: 0.87,
  }),
  'job.matched.v1': () => ({ jobId: randomUUID(), tenantId: randomUUID(), matchCount: 3, computedAt: now() }),
  'media.processed.v1': () => {
    const uploadId = randomUUID();
    return {
      uploadId,
      tenantId: randomUUID(),
      ownerType: 'job',
      ownerId: randomUUID(),
      uploadedAt: now(),
      variants: [
        {
          name: 'medium',
          width: 512,
          height: 384,
          contentType: 'image/webp',
          // As media makes them: ${MEDIA_PUBLIC_URL}/media/{uploadId}/{name}.webp
          url: `http://127.0.0.1:3000/media/${uploadId}/medium.webp`,
        },
      ],
    };
  },
  'media.failed.v1': () => ({ uploadId: randomUUID(), tenantId: randomUUID(), reason: 'not an image' }),
  'webhook.endpoint.disabled.v1': () => ({
    endpointId: randomUUID(),
    tenantId: randomUUID(),
    contactEmail: 'ops@example.test',
    host: 'hooks.example.test',
    reason: 'answered 410 Gone',
    disabledAt: now(),
  }),
};

/** A valid `type` event from its producer, new ids each call; `data` overrides fields. */
export function sampleEvent<T extends EventType>(type: T, data: Partial<EventData<T>> = {}): CloudEvent<T> {
  const full = { ...samples[type](), ...data } as EventData<T>;
  return createEvent(type, full, {
    source: `hireflow/${eventCatalog[type].producer}`,
    subject: Object.values(full as Record<string, unknown>)[0] as string,
  });
}
