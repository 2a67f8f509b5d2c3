import { defineEntity, p } from '@mikro-orm/core';

export const Tenant = defineEntity({
  name: 'Tenant',
  tableName: 'tenant',
  properties: {
    id: p.uuid().primary(),
    name: p.string(),
    contactEmail: p.string(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export const ApiKey = defineEntity({
  name: 'ApiKey',
  tableName: 'api_key',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    keyHash: p.string(),
    createdAt: p.datetime().onCreate(() => new Date()),
    revokedAt: p.datetime().nullable(),
  },
});

/** A processed upload (media.processed.v1): a posting's logo, a candidate's photo. */
export interface MediaImage {
  uploadId: string;
  variants: { name: string; width: number; height: number; contentType: string; url: string }[];
}

export const Posting = defineEntity({
  name: 'Posting',
  tableName: 'job_posting',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    title: p.string(),
    description: p.text(),
    skills: p.json<string[]>(),
    location: p.string(),
    remote: p.boolean(),
    contactEmail: p.string(),
    status: p.enum(['processing', 'matched', 'closed'] as const),
    matchCount: p.integer().nullable(),
    matchesComputedAt: p.datetime().nullable(),
    logo: p.json<MediaImage>().nullable(),
    logoUploadedAt: p.datetime().nullable(),
    postedAt: p.datetime(),
    closeAt: p.datetime(),
    closedAt: p.datetime().nullable(),
    updatedAt: p.datetime(),
  },
});

export const Candidate = defineEntity({
  name: 'Candidate',
  tableName: 'candidate',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    name: p.string(),
    email: p.string(),
    headline: p.string(),
    skills: p.json<string[]>(),
    location: p.string(),
    photo: p.json<MediaImage>().nullable(),
    photoUploadedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
  },
});

export type ApiKeyEntity = InstanceType<typeof ApiKey.class>;
export type PostingEntity = InstanceType<typeof Posting.class>;
export type CandidateEntity = InstanceType<typeof Candidate.class>;
