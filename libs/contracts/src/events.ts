// The v1 event catalog (docs/design.md, "Events"): one zod schema per event type's
// `data`, the topic it travels on and the service that produces it. Producers
// and consumers validate against these; the AsyncAPI document is generated
// from them.
import { z } from 'zod';
import { displayText } from './display-text.ts';
import type { ServiceName } from './services.ts';
import { text } from './text.ts';

const id = z.uuid();
const isoTime = z.iso.datetime({ offset: true });
// The same text rules as the HTTP API: an event breaking them is poison.
const shortText = (max: number) => text(max);
const optionalText = (max: number, multiline = false) => text(max, { min: 0, multiline });
const skills = z.array(shortText(64)).max(50);
const email = z.email().max(254);
/** Variant URLs are served over HTTP(S) only: no `javascript:`, `file:` or `data:`. */
const httpUrl = z.url({ protocol: /^https?$/, message: 'must be an http or https URL' }).max(2048);

export const jobPostedData = z.object({
  jobId: id,
  tenantId: id,
  title: displayText(200),
  description: optionalText(20_000, true),
  skills,
  location: optionalText(200),
  remote: z.boolean(),
  contactEmail: email,
  /**
   * The contact address is the tenant's own verified contact: summaries may go
   * there at once. Otherwise (or absent) the address confirms first.
   */
  contactVerified: z.boolean().optional(),
  postedAt: isoTime,
});

export const jobClosedData = z.object({ jobId: id, tenantId: id, closedAt: isoTime });

export const candidateRegisteredData = z.object({
  candidateId: id,
  tenantId: id,
  name: displayText(200),
  email,
  headline: displayText(300, { min: 0 }),
  skills,
  location: optionalText(200),
});

export const matchFoundData = z.object({
  matchId: id,
  jobId: id,
  candidateId: id,
  tenantId: id,
  /** Similarity in [0, 1]. */
  score: z.number().min(0).max(1),
});

export const jobMatchedData = z.object({
  jobId: id,
  tenantId: id,
  matchCount: z.number().int().min(0),
  computedAt: isoTime,
});

export const mediaVariant = z.object({
  name: shortText(64),
  width: z.number().int().positive().max(20_000),
  height: z.number().int().positive().max(20_000),
  contentType: z
    .string()
    .regex(/^image\/[a-z0-9.+-]+$/)
    .max(100),
  url: httpUrl,
});

/** What an upload can belong to: a job posting (its logo) or a candidate (their photo). */
export const mediaOwnerType = z.enum(['job', 'candidate']);

export const mediaProcessedData = z
  .object({
    uploadId: id,
    tenantId: id,
    /** Both or neither: an upload sent without an owner is announced too, and consumers that need one skip it. */
    ownerType: mediaOwnerType.optional(),
    ownerId: id.optional(),
    /** When the upload was accepted: consumers keep the newest image, whatever order events arrive in. */
    uploadedAt: isoTime,
    variants: z.array(mediaVariant).min(1).max(20),
  })
  .refine((data) => (data.ownerType === undefined) === (data.ownerId === undefined), {
    message: 'ownerType and ownerId go together',
    path: ['ownerId'],
  });

export const mediaFailedData = z.object({ uploadId: id, tenantId: id, reason: shortText(1000) });

export const apikeyIssuedData = z.object({
  keyId: id,
  tenantId: id,
  /** A one-way hash of the key (e.g. hex SHA-256): never the key itself. */
  keyHash: z.string().min(32).max(256),
  issuedAt: isoTime,
  signature: z
    .string()
    .regex(/^[A-Za-z0-9_-]{43}$/)
    .optional()
    .describe(
      "HMAC-SHA256 (base64url) of the other fields with the producer's APIKEY_EVENT_KEY (apikey-signature.ts): events are not credentials, a consumer that holds the key refuses an event without it.",
    ),
});

export const apikeyRevokedData = z.object({
  keyId: id,
  tenantId: id,
  revokedAt: isoTime,
  signature: apikeyIssuedData.shape.signature,
});

/** jobs disabled a tenant's webhook endpoint (410 Gone, or failing for the whole retry window). */
export const webhookEndpointDisabledData = z.object({
  endpointId: id,
  tenantId: id,
  /** Where the tenant is told (its contact address). */
  contactEmail: email,
  /** The endpoint URL's host only: a path or query may carry the receiver's own token. */
  host: shortText(253),
  reason: shortText(300),
  disabledAt: isoTime,
});

export type { ServiceName };
/** One SNS topic per producing service. */
export type TopicName = 'jobs-events' | 'matching-events' | 'media-events';

export interface CatalogEntry<
  S extends z.ZodType = z.ZodType,
  T extends TopicName = TopicName,
  P extends ServiceName = ServiceName,
> {
  data: S;
  /** The topic the event is published on (one topic per producer). */
  topic: T;
  producer: P;
  description: string;
}

const entry = <S extends z.ZodType, T extends TopicName, P extends ServiceName>(
  data: S,
  topic: T,
  producer: P,
  description: string,
): CatalogEntry<S, T, P> => ({ data, topic, producer, description });

export const eventCatalog = {
  'job.posted.v1': entry(jobPostedData, 'jobs-events', 'jobs', 'A recruiter published a job posting.'),
  'job.closed.v1': entry(jobClosedData, 'jobs-events', 'jobs', 'A job posting was closed.'),
  'candidate.registered.v1': entry(
    candidateRegisteredData,
    'jobs-events',
    'jobs',
    'A candidate registered with a profile.',
  ),
  'apikey.issued.v1': entry(apikeyIssuedData, 'jobs-events', 'jobs', 'An API key was issued to a tenant.'),
  'apikey.revoked.v1': entry(apikeyRevokedData, 'jobs-events', 'jobs', 'An API key was revoked.'),
  'webhook.endpoint.disabled.v1': entry(
    webhookEndpointDisabledData,
    'jobs-events',
    'jobs',
    "A tenant's webhook endpoint was disabled (it answered 410 Gone, or failed for three days).",
  ),
  'match.found.v1': entry(matchFoundData, 'matching-events', 'matching', 'A candidate matches a posting.'),
  'job.matched.v1': entry(
    jobMatchedData,
    'matching-events',
    'matching',
    "A posting's matches were (re)computed.",
  ),
  'media.processed.v1': entry(
    mediaProcessedData,
    'media-events',
    'media',
    'An upload was resized into its variants.',
  ),
  'media.failed.v1': entry(mediaFailedData, 'media-events', 'media', 'An upload could not be processed.'),
} as const;

/** Any catalog of event types: the one above, or a test's own (docs/contracts.md). */
export type Catalog = Record<string, CatalogEntry>;
export type EventCatalog = typeof eventCatalog;
export type EventType = keyof EventCatalog;
export type EventData<T extends EventType> = z.infer<EventCatalog[T]['data']>;

export const eventTypes = Object.keys(eventCatalog) as EventType[];

export function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && Object.hasOwn(eventCatalog, value);
}

/** The event types published on topic `T`: what a subscription to it may filter on. */
export type EventTypeOn<T extends TopicName> = {
  [E in EventType]: EventCatalog[E]['topic'] extends T ? E : never;
}[EventType];

/** The topic an event type is published on. */
export function topicOf(type: EventType): TopicName {
  return eventCatalog[type].topic;
}
