// The quotas a deployment runs into that are not a part's own ceiling: the
// AWS account's (as data, each with its source) and the notifications
// service's own per-tenant email quota. The model turns each into a limit
// with its headroom at the profile's load (model.ts, docs/capacity.md).
// AWS's figures are the documented defaults; most are soft (raised on
// request through Service Quotas) and change: check them against the pages
// named before relying on them.

/** The region the model plans for by default: the prices' (prices.ts, eu-west-1). */
export const DEFAULT_REGION = 'eu-west-1';

/**
 * SNS Publish requests per second per account and region (soft). Source:
 * the Amazon SNS endpoints and quotas page
 * (https://docs.aws.amazon.com/general/latest/gr/sns.html, "Publish API"):
 * 30,000/s in us-east-1, 9,000/s in us-west-2 and eu-west-1, 1,500/s in the
 * other regions. The outbox relay publishes with PublishBatch (up to 10 a
 * call); the model counts every message against this quota, the cautious
 * reading: the SNS batching page speaks of "how many messages you can
 * publish to a topic per second" (https://docs.aws.amazon.com/sns/latest/dg/sns-batch-api-actions.html).
 */
export const snsPublishPerSecond: Readonly<Record<string, number>> = {
  'us-east-1': 30_000,
  'us-west-2': 9_000,
  'eu-west-1': 9_000,
};
export const SNS_PUBLISH_PER_SECOND_ELSEWHERE = 1_500;

export function snsPublishQuota(region: string): number {
  return snsPublishPerSecond[region] ?? SNS_PUBLISH_PER_SECOND_ELSEWHERE;
}

/**
 * SQS, standard queues (every queue of the topology is standard). Source:
 * the Amazon SQS message quotas page
 * (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/quotas-messages.html):
 * "nearly unlimited" API calls per second per action, and at most 120,000
 * in-flight messages (received, not yet deleted) per queue; past it a
 * receive fails with OverLimit. FIFO queues (300 API calls per second per
 * action without high throughput, 3,000 messages per second batched) are not
 * used, so the model has no limit for them.
 */
export const sqsStandard = {
  apiCallsPerSecond: Number.POSITIVE_INFINITY,
  inFlightPerQueue: 120_000,
} as const;

/**
 * Messages one consumer process holds in flight on a queue at most: its
 * handlers (DEFAULT_CONCURRENCY 10) and, with fairness by tenant on (the
 * default, INBOX_FAIRNESS), the hand of received messages not yet started
 * (max(2 × concurrency, 100)): libs/messaging/src/sqs (consumer.ts, fair-intake.ts).
 */
export const SQS_IN_FLIGHT_PER_CONSUMER = 10 + 100;

/**
 * The notifications service's per-tenant quota: emails one tenant's events
 * may cause per UTC day (TENANT_DAILY_EMAIL_QUOTA, default 1,000;
 * services/notifications/src/config.ts). Beyond it emails are held and sent
 * on a later day, so a tenant whose daily emails stay above it never drains.
 * The stack does not set it: the default applies.
 */
export const TENANT_DAILY_EMAIL_QUOTA = 1_000;
