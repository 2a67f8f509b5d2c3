import { defineEntity, p } from '@mikro-orm/core';

export const CandidateProjection = defineEntity({
  name: 'CandidateProjection',
  tableName: 'candidate_projection',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    name: p.string(),
    email: p.string(),
    updatedAt: p.datetime(),
  },
});

export const PostingProjection = defineEntity({
  name: 'PostingProjection',
  tableName: 'posting_projection',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    title: p.string(),
    contactEmail: p.string(),
    contactVerified: p.boolean(),
    postedAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});

export const TEMPLATES = [
  'welcome',
  'match',
  'job-matched',
  'webhook-disabled',
  'contact-confirmation',
] as const;
export type TemplateName = (typeof TEMPLATES)[number];
export const NOTIFICATION_STATUSES = [
  'queued',
  'sent',
  'failed',
  'suppressed',
  'held',
  'unconfirmed',
] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];

export const NotificationLog = defineEntity({
  name: 'NotificationLog',
  tableName: 'notification_log',
  properties: {
    id: p.bigint('string').primary(),
    key: p.string().unique(),
    tenantId: p.uuid(),
    eventId: p.uuid(),
    recipient: p.string(),
    template: p.enum(TEMPLATES),
    params: p.json<Record<string, unknown>>(),
    messageId: p.string(),
    status: p.enum(NOTIFICATION_STATUSES),
    attempts: p.integer(),
    providerMessageId: p.string().nullable(),
    error: p.text().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
    sentAt: p.datetime().nullable(),
  },
});

export type CandidateProjectionEntity = InstanceType<typeof CandidateProjection.class>;
export type PostingProjectionEntity = InstanceType<typeof PostingProjection.class>;
