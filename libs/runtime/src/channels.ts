import { ListTopicsCommand } from '@aws-sdk/client-sns';
import { GetQueueUrlCommand } from '@aws-sdk/client-sqs';
import { dlqName, serviceChannels } from '@hireflow/contracts';
import type { ServiceDeps } from './deps.ts';

/** A queue and its DLQ, as the SQS consumer takes them. */
export interface InboxChannel {
  name: string;
  logicalName: string;
  url: string;
  dlq: { url: string };
}

export interface ServiceChannels {
  /** The service's inbox queue (its interactive lane's when it has lanes) and its DLQ. */
  inbox?: InboxChannel;
  /** The bulk lane's queue beside it (docs/fairness.md), when the topology gives it one. */
  bulkInbox?: InboxChannel;
  /** Logical topic name (`jobs-events`) → ARN, for the outbox relay. */
  topicArns: Record<string, string>;
}

/**
 * Looks up the URLs and ARNs of the service's inbox, DLQ and topic by name
 * (the provisioner created them; a service never creates topology). SNS has
 * no lookup by name, so topics are found by listing.
 */
export async function resolveChannels(deps: ServiceDeps): Promise<ServiceChannels> {
  const logical = serviceChannels(deps.service);
  const result: ServiceChannels = { topicArns: {} };
  const channel = async (name: string, logicalName: string): Promise<InboxChannel> => {
    const url = (await deps.sqs.send(new GetQueueUrlCommand({ QueueName: name }))).QueueUrl!;
    const dlq = (await deps.sqs.send(new GetQueueUrlCommand({ QueueName: dlqName(name) }))).QueueUrl!;
    return { name, logicalName, url, dlq: { url: dlq } };
  };
  if (deps.names.inbox) result.inbox = await channel(deps.names.inbox, logical.inbox!);
  if (deps.names.bulkInbox && logical.bulkInbox) {
    result.bulkInbox = await channel(deps.names.bulkInbox, logical.bulkInbox);
  }
  if (logical.topic && deps.names.topic) {
    const wanted = deps.names.topic;
    let token: string | undefined;
    do {
      const listed = await deps.sns.send(new ListTopicsCommand({ NextToken: token }));
      const arn = listed.Topics?.find((t) => t.TopicArn?.endsWith(`:${wanted}`))?.TopicArn;
      if (arn) result.topicArns[logical.topic] = arn;
      token = arn ? undefined : listed.NextToken;
    } while (token);
    if (!result.topicArns[logical.topic])
      throw new Error(`topic ${wanted} does not exist: run pnpm provision`);
  }
  return result;
}
