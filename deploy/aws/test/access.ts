// Least privilege as a rule over the synthesized template: what each
// service's task role may do, and to which resources. Written from the calls
// the code makes (libs/runtime/src/channels.ts, libs/messaging), not from the
// stack's own policy code, so a widened grant fails here.
import { type ServiceName, serviceChannels } from '@hireflow/contracts';
import type { CfnElement, Stack } from 'aws-cdk-lib';
import type { HireflowStack } from '../src/index.ts';
import {
  referencedIds,
  resourcesOfType,
  type StatementJson,
  statementsOf,
  type TemplateJson,
} from './template.ts';

/** What a service process calls on its channels, by the kind of resource. */
const ALLOWED_ACTIONS: Record<'inbox' | 'dlq' | 'topic' | 'bucket' | 'bucketObjects', string[]> = {
  inbox: [
    'sqs:ReceiveMessage',
    'sqs:DeleteMessage',
    'sqs:ChangeMessageVisibility',
    'sqs:SendMessage',
    'sqs:GetQueueUrl',
    'sqs:GetQueueAttributes',
    'sqs:SetQueueAttributes',
  ],
  dlq: ['sqs:SendMessage', 'sqs:GetQueueUrl', 'sqs:GetQueueAttributes'],
  topic: ['sns:Publish'],
  bucket: ['s3:ListBucket'],
  bucketObjects: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload'],
};

/** Calls that take no resource: finding the topic by listing, and the collector's X-Ray calls. */
const RESOURCELESS = new Set([
  'sns:ListTopics',
  'xray:PutTraceSegments',
  'xray:PutTelemetryRecords',
  'xray:GetSamplingRules',
  'xray:GetSamplingTargets',
]);

interface Owned {
  id: string;
  kind: keyof typeof ALLOWED_ACTIONS;
}

export interface ServiceAccess {
  /** A service, or a subscriber service of the registry. */
  service: ServiceName | (string & {});
  roleId: string;
  owned: Owned[];
}

export const idOf = (stack: Stack, construct: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(construct.node.defaultChild as CfnElement);

/** Each service's task role and the channels it owns, as logical ids of the stack. */
export function serviceAccess(stack: HireflowStack): ServiceAccess[] {
  const access: ServiceAccess[] = [];
  for (const [service, deployment] of stack.deployments) {
    const { inbox, bulkInbox, topic, bucket } = serviceChannels(service);
    const owned: Owned[] = [];
    // Its inbox's two lanes (docs/fairness.md), each with its DLQ.
    for (const name of [inbox, bulkInbox]) {
      const queues = name ? stack.messaging.inboxes.get(name) : undefined;
      if (!queues) continue;
      owned.push({ id: idOf(stack, queues.queue), kind: 'inbox' });
      owned.push({ id: idOf(stack, queues.deadLetterQueue), kind: 'dlq' });
    }
    const ownTopic = topic ? stack.messaging.topics.get(topic) : undefined;
    if (ownTopic) owned.push({ id: idOf(stack, ownTopic), kind: 'topic' });
    const ownBucket = bucket ? stack.messaging.buckets.get(bucket) : undefined;
    if (ownBucket) owned.push({ id: idOf(stack, ownBucket), kind: 'bucket' });
    access.push({ service, roleId: idOf(stack, deployment.taskRole), owned });
  }
  return access;
}

/** The statements attached to a role: inline policies and AWS::IAM::Policy resources naming it. */
export function roleStatements(json: TemplateJson, roleId: string): StatementJson[] {
  const role = json.Resources[roleId]!;
  const inline = (role.Properties.Policies ?? []).flatMap((p: { PolicyDocument: unknown }) =>
    statementsOf(p.PolicyDocument),
  );
  const attached = resourcesOfType(json, 'AWS::IAM::Policy')
    .filter(([, p]) => referencedIds(p.Properties.Roles).has(roleId))
    .flatMap(([, p]) => statementsOf(p.Properties.PolicyDocument));
  return [...inline, ...attached];
}

/** The logical ids of every queue, topic and bucket in the template: what a role could touch. */
function channelIds(json: TemplateJson): Map<string, string> {
  const names = new Map<string, string>();
  for (const [id, r] of resourcesOfType(json, 'AWS::SQS::Queue')) names.set(id, r.Properties.QueueName);
  for (const [id, r] of resourcesOfType(json, 'AWS::SNS::Topic')) names.set(id, r.Properties.TopicName);
  for (const [id] of resourcesOfType(json, 'AWS::S3::Bucket')) names.set(id, `bucket ${id}`);
  return names;
}

/** A bucket's objects are `Fn::Join [arn, '/*']`; the bucket itself is its plain ARN. */
const isObjectResource = (resource: unknown) => JSON.stringify(resource).includes('/*');

/** "jobs can sqs:ReceiveMessage on matching-inbox": every grant beyond the service's own channels. */
export function accessViolations(json: TemplateJson, services: ServiceAccess[]): string[] {
  const channels = channelIds(json);
  const violations: string[] = [];
  for (const { service, roleId, owned } of services) {
    if ((json.Resources[roleId]!.Properties.ManagedPolicyArns ?? []).length > 0) {
      violations.push(`${service} has managed policies`);
    }
    for (const statement of roleStatements(json, roleId)) {
      if (statement.Effect !== 'Allow') continue;
      const actions = [statement.Action].flat();
      for (const resource of [statement.Resource].flat()) {
        for (const action of actions) {
          const problem = judge(action, resource, owned, channels);
          if (problem) violations.push(`${service} can ${action} on ${problem}`);
        }
      }
    }
  }
  return violations;
}

/** Why `action` on `resource` is too much for a service owning `owned`, or undefined. */
function judge(
  action: string,
  resource: unknown,
  owned: Owned[],
  channels: Map<string, string>,
): string | undefined {
  if (action.includes('*')) return `${JSON.stringify(resource)} (wildcard action)`;
  if (resource === '*') return RESOURCELESS.has(action) ? undefined : '*';
  const ids = [...referencedIds(resource)].filter((id) => channels.has(id));
  if (ids.length === 0) return `${JSON.stringify(resource)} (not a channel)`;
  for (const id of ids) {
    const mine = owned.find((o) => o.id === id);
    if (!mine) return channels.get(id);
    const kind = mine.kind === 'bucket' && isObjectResource(resource) ? 'bucketObjects' : mine.kind;
    if (!ALLOWED_ACTIONS[kind].includes(action)) return `${channels.get(id)} (not a call the service makes)`;
  }
  return undefined;
}
