// Least privilege per service, written out rather than through the CDK's
// grant helpers, so the policy reads as the list of calls the code makes
// (libs/runtime/src/channels.ts, libs/messaging): publish to its own topic,
// consume its own queue, dead-letter into its own DLQ, and its own bucket.
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type { Inbox } from './messaging.ts';

export interface ServiceChannels {
  topic?: sns.ITopic | undefined;
  inbox?: Inbox | undefined;
  /** The bulk lane's queue beside the inbox (docs/fairness.md), consumed the same way. */
  bulkInbox?: Inbox | undefined;
  bucket?: s3.IBucket | undefined;
}

/** The consumer's calls on its inbox (batch variants are authorised by the same actions). */
export const INBOX_ACTIONS = [
  'sqs:ReceiveMessage',
  'sqs:DeleteMessage',
  'sqs:ChangeMessageVisibility',
  // A message waiting for a dependency is re-sent to the inbox with a delay.
  'sqs:SendMessage',
  'sqs:GetQueueUrl',
  'sqs:GetQueueAttributes',
  // The consumer resizes the visibility timeout from its measured p99.
  'sqs:SetQueueAttributes',
];

/** A message that fails validation goes to the DLQ at once; its depth is a gauge. */
export const DEAD_LETTER_ACTIONS = ['sqs:SendMessage', 'sqs:GetQueueUrl', 'sqs:GetQueueAttributes'];

export const BUCKET_OBJECT_ACTIONS = [
  's3:GetObject',
  's3:PutObject',
  's3:DeleteObject',
  's3:AbortMultipartUpload',
];

export function serviceChannelStatements(channels: ServiceChannels): iam.PolicyStatement[] {
  const statements: iam.PolicyStatement[] = [];
  if (channels.topic) {
    statements.push(
      new iam.PolicyStatement({
        sid: 'PublishOwnTopic',
        actions: ['sns:Publish'],
        resources: [channels.topic.topicArn],
      }),
      // SNS has no lookup by name: the service lists topics to find its ARN.
      // Listing reveals names only and takes no resource.
      new iam.PolicyStatement({ sid: 'FindOwnTopic', actions: ['sns:ListTopics'], resources: ['*'] }),
    );
  }
  if (channels.inbox) {
    const inboxes = [channels.inbox, ...(channels.bulkInbox ? [channels.bulkInbox] : [])];
    statements.push(
      new iam.PolicyStatement({
        sid: 'ConsumeOwnInbox',
        actions: INBOX_ACTIONS,
        resources: inboxes.map((inbox) => inbox.queue.queueArn),
      }),
      new iam.PolicyStatement({
        sid: 'DeadLetterOwnInbox',
        actions: DEAD_LETTER_ACTIONS,
        resources: inboxes.map((inbox) => inbox.deadLetterQueue.queueArn),
      }),
    );
  }
  if (channels.bucket) {
    statements.push(
      new iam.PolicyStatement({
        sid: 'OwnBucketObjects',
        actions: BUCKET_OBJECT_ACTIONS,
        resources: [channels.bucket.arnForObjects('*')],
      }),
      // Without it a missing key answers 403 instead of 404.
      new iam.PolicyStatement({
        sid: 'ListOwnBucket',
        actions: ['s3:ListBucket'],
        resources: [channels.bucket.bucketArn],
      }),
    );
  }
  return statements;
}
