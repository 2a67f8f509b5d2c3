import { CreateBucketCommand, HeadBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import {
  CreateTopicCommand,
  ListSubscriptionsByTopicCommand,
  SetSubscriptionAttributesCommand,
  type SNSClient,
  SubscribeCommand,
  type Subscription,
} from '@aws-sdk/client-sns';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  QueueDoesNotExist,
  SetQueueAttributesCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { dlqName, filterPolicy, type Topology } from '@hireflow/contracts';

export interface ProvisionedQueue {
  name: string;
  url: string;
  arn: string;
  dlq: { name: string; url: string; arn: string };
}

export interface ProvisionedTopology {
  prefix: string;
  topics: Record<string, { name: string; arn: string }>;
  queues: Record<string, ProvisionedQueue>;
  subscriptions: { topic: string; queue: string; arn: string; filterPolicy: string }[];
  /** Logical bucket name → full name (with the prefix); empty without an S3 client. */
  buckets: Record<string, string>;
}

export interface ProvisionOptions {
  sns: SNSClient;
  sqs: SQSClient;
  /** Creates the topology's buckets too when given. */
  s3?: S3Client;
  /** Prepended to every topic and queue name (tests and side-by-side stacks use their own). */
  prefix?: string;
}

/**
 * Applies the topology to an SNS/SQS endpoint. Idempotent: running it again
 * converges on the same topics, queues and subscriptions without duplicating
 * any, and keeps a queue's visibility timeout once consumers have tuned it.
 */
export async function provisionTopology(
  topology: Topology,
  options: ProvisionOptions,
): Promise<ProvisionedTopology> {
  const prefix = options.prefix ?? '';
  const { sns, sqs } = options;

  const topics: ProvisionedTopology['topics'] = {};
  for (const name of Object.keys(topology.topics)) {
    const fullName = prefix + name;
    const created = await sns.send(new CreateTopicCommand({ Name: fullName }));
    topics[name] = { name: fullName, arn: created.TopicArn! };
  }

  const queues: ProvisionedTopology['queues'] = {};
  const subscriptions: ProvisionedTopology['subscriptions'] = [];
  for (const [name, def] of Object.entries(topology.queues)) {
    const retention = String(topology.messageRetentionSeconds);
    const dlq = await ensureQueue(sqs, prefix + dlqName(name), { MessageRetentionPeriod: retention }, {});
    const sourceTopics = def.subscriptions.map((s) => requireTopic(topics, s.topic, name).arn);
    const main = await ensureQueue(
      sqs,
      prefix + name,
      {
        MessageRetentionPeriod: retention,
        ReceiveMessageWaitTimeSeconds: String(topology.receiveWaitTimeSeconds),
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.arn, maxReceiveCount: def.maxReceiveCount }),
        Policy: snsDeliveryPolicy(sourceTopics),
      },
      { VisibilityTimeout: String(def.visibilityTimeoutSeconds) },
    );
    queues[name] = { ...main, dlq };

    for (const sub of def.subscriptions) {
      const topicArn = requireTopic(topics, sub.topic, name).arn;
      const policy = JSON.stringify(filterPolicy(def, sub));
      const arn = await ensureSubscription(sns, topicArn, main.arn, policy);
      subscriptions.push({ topic: sub.topic, queue: name, arn, filterPolicy: policy });
    }
  }
  const buckets: ProvisionedTopology['buckets'] = {};
  if (options.s3) {
    for (const name of Object.keys(topology.buckets ?? {})) {
      buckets[name] = prefix + name;
      await ensureBucket(options.s3, prefix + name);
    }
  }
  return { prefix, topics, queues, subscriptions, buckets };
}

async function ensureBucket(s3: S3Client, name: string): Promise<void> {
  try {
    await s3.send(new HeadBucketCommand({ Bucket: name }));
  } catch {
    // Missing (404), or not ours: CreateBucket says which.
    await s3.send(new CreateBucketCommand({ Bucket: name })).catch((error: Error) => {
      if (error.name !== 'BucketAlreadyOwnedByYou') throw error;
    });
  }
}

function requireTopic(topics: ProvisionedTopology['topics'], topic: string, queue: string) {
  const found = topics[topic];
  if (!found) throw new Error(`queue ${queue} subscribes to unknown topic ${topic}`);
  return found;
}

/** Lets the source topics (and only they) deliver to the queue. */
function snsDeliveryPolicy(topicArns: string[]): string {
  return JSON.stringify({
    Version: '2012-10-17',
    Statement: [
      {
        Sid: 'AllowSnsDelivery',
        Effect: 'Allow',
        Principal: { Service: 'sns.amazonaws.com' },
        Action: 'sqs:SendMessage',
        Resource: '*',
        Condition: { ArnEquals: { 'aws:SourceArn': topicArns } },
      },
    ],
  });
}

/**
 * Creates the queue with `always` + `onCreate` attributes, or, when it exists,
 * re-applies only `always`: CreateQueue fails on an existing queue whose
 * attributes differ, and `onCreate` values (visibility) may have been tuned since.
 */
async function ensureQueue(
  sqs: SQSClient,
  name: string,
  always: Record<string, string>,
  onCreate: Record<string, string>,
): Promise<{ name: string; url: string; arn: string }> {
  let url: string;
  try {
    url = (await sqs.send(new GetQueueUrlCommand({ QueueName: name }))).QueueUrl!;
    await sqs.send(new SetQueueAttributesCommand({ QueueUrl: url, Attributes: always }));
  } catch (error) {
    if (!(error instanceof QueueDoesNotExist)) throw error;
    url = (
      await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: { ...always, ...onCreate } }))
    ).QueueUrl!;
  }
  const attrs = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
  );
  return { name, url, arn: attrs.Attributes!.QueueArn! };
}

async function ensureSubscription(
  sns: SNSClient,
  topicArn: string,
  queueArn: string,
  filterPolicy: string,
): Promise<string> {
  const existing = await findSubscription(sns, topicArn, queueArn);
  if (existing?.SubscriptionArn && existing.SubscriptionArn !== 'PendingConfirmation') {
    await sns.send(
      new SetSubscriptionAttributesCommand({
        SubscriptionArn: existing.SubscriptionArn,
        AttributeName: 'FilterPolicy',
        AttributeValue: filterPolicy,
      }),
    );
    await sns.send(
      new SetSubscriptionAttributesCommand({
        SubscriptionArn: existing.SubscriptionArn,
        AttributeName: 'RawMessageDelivery',
        AttributeValue: 'true',
      }),
    );
    return existing.SubscriptionArn;
  }
  const created = await sns.send(
    new SubscribeCommand({
      TopicArn: topicArn,
      Protocol: 'sqs',
      Endpoint: queueArn,
      ReturnSubscriptionArn: true,
      Attributes: {
        RawMessageDelivery: 'true',
        FilterPolicy: filterPolicy,
        FilterPolicyScope: 'MessageAttributes',
      },
    }),
  );
  return created.SubscriptionArn!;
}

async function findSubscription(
  sns: SNSClient,
  topicArn: string,
  queueArn: string,
): Promise<Subscription | undefined> {
  let token: string | undefined;
  do {
    const page = await sns.send(
      new ListSubscriptionsByTopicCommand({ TopicArn: topicArn, NextToken: token }),
    );
    const match = page.Subscriptions?.find((s) => s.Protocol === 'sqs' && s.Endpoint === queueArn);
    if (match) return match;
    token = page.NextToken;
  } while (token);
  return undefined;
}
