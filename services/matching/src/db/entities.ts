import { defineEntity, p } from '@mikro-orm/core';

// The matching service's tables (migrations.ts). Reads and writes of vectors,
// sequences and matches are SQL in the modules' store.ts files; the entities
// name the columns and serve the simple reads.

export const POSTING_STATUSES = ['pending', 'open', 'closed'] as const;

export const Posting = defineEntity({
  name: 'Posting',
  tableName: 'posting',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    /** pending: received, first computation not done; open: computed; closed: gains nothing. */
    status: p.enum(POSTING_STATUSES),
    title: p.text(),
    description: p.text(),
    skills: p.json<string[]>(),
    /** The `ProfileEmbedder.id` that produced `vector`. */
    modelId: p.string().nullable(),
    /** float32 little-endian, unit length. */
    vector: p.blob().nullable(),
    canonicalSkills: p.json<string[]>().nullable(),
    /** Last change the in-memory indexes must learn (change_seq). */
    seq: p.bigint('string').nullable(),
    matchCount: p.integer(),
    /** The last computation that changed its matches (job.matched.v1's computedAt). */
    computedAt: p.datetime().nullable(),
    /** The job.posted.v1 its computation derives from. */
    eventId: p.uuid().nullable(),
    postedAt: p.datetime().nullable(),
    closedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});

export const Candidate = defineEntity({
  name: 'Candidate',
  tableName: 'candidate',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    headline: p.text(),
    skills: p.json<string[]>(),
    modelId: p.string().nullable(),
    vector: p.blob().nullable(),
    canonicalSkills: p.json<string[]>().nullable(),
    seq: p.bigint('string').nullable(),
    computedAt: p.datetime().nullable(),
    eventId: p.uuid(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});

export const PostingMatch = defineEntity({
  name: 'PostingMatch',
  tableName: 'posting_match',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    postingId: p.uuid(),
    candidateId: p.uuid(),
    score: p.double(),
    foundAt: p.datetime(),
  },
});
