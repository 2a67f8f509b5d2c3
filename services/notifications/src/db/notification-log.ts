// The values notification_log's `template` and `status` take (migrations.ts).

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
