// The policies the topology implies, in one place for both of its targets:
// the CloudFormation generator passes intrinsic references, the provisioner
// (infra/src/provision.ts) could pass plain ARNs and strings.

/** A subscription's filter policy: the `type` message attribute values the queue receives. */
export function typeFilterPolicy(types: string[]): { type: string[] } {
  return { type: [...types].sort() };
}

/** The queue policy statement that lets SNS deliver to `queue` (an ARN, or `*`) from `sourceTopics` only. */
export function snsDeliveryStatement<Queue, Topic>(queue: Queue, sourceTopics: Topic[]) {
  return {
    Sid: 'AllowSnsDelivery',
    Effect: 'Allow',
    Principal: { Service: 'sns.amazonaws.com' },
    Action: 'sqs:SendMessage',
    Resource: queue,
    Condition: { ArnEquals: { 'aws:SourceArn': sourceTopics } },
  } as const;
}
