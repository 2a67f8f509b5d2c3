import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { dlqName, type Topology, topology } from '@hireflow/contracts';
import { provisionTopology } from '@hireflow/infra';
import { testAws, uniqueName } from '@hireflow/testing';
import { describe, expect, it } from 'vitest';
import {
  type CloudFormationResource,
  type CloudFormationTemplate,
  generateCloudFormation,
} from '../src/aws/cloudformation.ts';

const REGENERATE =
  'node infra/src/aws/cli.ts > infra/aws/stack.json && pnpm biome format --write infra/aws/stack.json';
const root = new URL('../../', import.meta.url);

const template = generateCloudFormation(topology);

function resourcesOfType(t: CloudFormationTemplate, type: string): [string, CloudFormationResource][] {
  return Object.entries(t.Resources).filter(([, r]) => r.Type === type);
}

/** The logical id of the resource with this property value (TopicName, QueueName…). */
function idByName(t: CloudFormationTemplate, type: string, property: string, value: string): string {
  const found = resourcesOfType(t, type).filter(([, r]) => r.Properties[property] === value);
  expect(found, `${type} ${property}=${value}`).toHaveLength(1);
  return found[0]![0];
}

const ref = (id: string) => ({ Ref: id });
const arnOf = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });

/** Every Ref / Fn::GetAtt / Fn::If condition in the template, for integrity checks. */
function references(value: unknown, found: { refs: string[]; conditions: string[] }) {
  if (Array.isArray(value)) {
    for (const item of value) references(item, found);
  } else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'Ref') found.refs.push(inner as string);
      else if (key === 'Fn::GetAtt') found.refs.push((inner as string[])[0]!);
      else if (key === 'Fn::If') found.conditions.push((inner as string[])[0]!);
      references(inner, found);
    }
  }
  return found;
}

describe('generateCloudFormation', () => {
  it('declares one topic per topology topic', () => {
    const topics = resourcesOfType(template, 'AWS::SNS::Topic');
    expect(topics.map(([, r]) => r.Properties.TopicName).sort()).toEqual(Object.keys(topology.topics).sort());
  });

  it('declares each queue with its DLQ, redrive policy and the topology attributes', () => {
    for (const [name, def] of Object.entries(topology.queues)) {
      const queueId = idByName(template, 'AWS::SQS::Queue', 'QueueName', name);
      const dlqId = idByName(template, 'AWS::SQS::Queue', 'QueueName', dlqName(name));
      expect(template.Resources[queueId]!.Properties).toEqual({
        QueueName: name,
        VisibilityTimeout: def.visibilityTimeoutSeconds,
        MessageRetentionPeriod: topology.messageRetentionSeconds,
        ReceiveMessageWaitTimeSeconds: topology.receiveWaitTimeSeconds,
        RedrivePolicy: { deadLetterTargetArn: arnOf(dlqId), maxReceiveCount: def.maxReceiveCount },
        SqsManagedSseEnabled: true,
      });
      expect(template.Resources[dlqId]!.Properties).toMatchObject({
        MessageRetentionPeriod: topology.messageRetentionSeconds,
      });
      expect(template.Outputs[`${queueId}Url`]?.Value).toEqual(ref(queueId));
      expect(template.Outputs[`${dlqId}Url`]?.Value).toEqual(ref(dlqId));
    }
    const queueCount = Object.keys(topology.queues).length;
    expect(resourcesOfType(template, 'AWS::SQS::Queue')).toHaveLength(2 * queueCount);
  });

  it('lets SNS deliver to each queue from its source topics only', () => {
    for (const [name, def] of Object.entries(topology.queues)) {
      const queueId = idByName(template, 'AWS::SQS::Queue', 'QueueName', name);
      const policies = resourcesOfType(template, 'AWS::SQS::QueuePolicy').filter(([, r]) =>
        (r.Properties.Queues as unknown[]).some((q) => JSON.stringify(q) === JSON.stringify(ref(queueId))),
      );
      expect(policies).toHaveLength(1);
      const [statement, ...others] = (policies[0]![1].Properties.PolicyDocument as { Statement: unknown[] })
        .Statement as Record<string, unknown>[];
      expect(others).toEqual([]);
      const sources = [...new Set(def.subscriptions.map((s) => s.topic))].map((topic) =>
        ref(idByName(template, 'AWS::SNS::Topic', 'TopicName', topic)),
      );
      expect(statement).toEqual({
        Sid: 'AllowSnsDelivery',
        Effect: 'Allow',
        Principal: { Service: 'sns.amazonaws.com' },
        Action: 'sqs:SendMessage',
        Resource: arnOf(queueId),
        Condition: { ArnEquals: { 'aws:SourceArn': sources } },
      });
    }
  });

  it('subscribes each queue to its topics with raw delivery and a filter on the type attribute', () => {
    const subscriptions = resourcesOfType(template, 'AWS::SNS::Subscription');
    const expected = Object.values(topology.queues).reduce((n, q) => n + q.subscriptions.length, 0);
    expect(subscriptions).toHaveLength(expected);
    for (const [name, def] of Object.entries(topology.queues)) {
      const queueId = idByName(template, 'AWS::SQS::Queue', 'QueueName', name);
      for (const sub of def.subscriptions) {
        const topicId = idByName(template, 'AWS::SNS::Topic', 'TopicName', sub.topic);
        const matching = subscriptions.filter(
          ([, r]) =>
            JSON.stringify(r.Properties.TopicArn) === JSON.stringify(ref(topicId)) &&
            JSON.stringify(r.Properties.Endpoint) === JSON.stringify(arnOf(queueId)),
        );
        expect(matching, `${sub.topic} -> ${name}`).toHaveLength(1);
        const [, resource] = matching[0]!;
        expect(resource.Properties).toMatchObject({
          Protocol: 'sqs',
          RawMessageDelivery: true,
          FilterPolicyScope: 'MessageAttributes',
          FilterPolicy: { type: [...sub.types].sort() },
        });
        // Subscribed only once the queue policy lets SNS in.
        const policyId = resourcesOfType(template, 'AWS::SQS::QueuePolicy').find(([, r]) =>
          (r.Properties.Queues as unknown[]).some((q) => JSON.stringify(q) === JSON.stringify(ref(queueId))),
        )?.[0];
        expect(resource.DependsOn).toEqual([policyId]);
      }
    }
  });

  it('alarms on any message in any DLQ', () => {
    const alarms = resourcesOfType(template, 'AWS::CloudWatch::Alarm');
    expect(alarms).toHaveLength(Object.keys(topology.queues).length);
    for (const name of Object.keys(topology.queues)) {
      const dlqId = idByName(template, 'AWS::SQS::Queue', 'QueueName', dlqName(name));
      const matching = alarms.filter(
        ([, r]) =>
          JSON.stringify(r.Properties.Dimensions) ===
          JSON.stringify([{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlqId, 'QueueName'] } }]),
      );
      expect(matching, dlqName(name)).toHaveLength(1);
      expect(matching[0]![1].Properties).toMatchObject({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Statistic: 'Maximum',
        ComparisonOperator: 'GreaterThanThreshold',
        Threshold: 0,
        EvaluationPeriods: 1,
        TreatMissingData: 'notBreaching',
      });
    }
  });

  it('outputs every topic ARN', () => {
    for (const name of Object.keys(topology.topics)) {
      const id = idByName(template, 'AWS::SNS::Topic', 'TopicName', name);
      expect(template.Outputs[`${id}Arn`]?.Value).toEqual(ref(id));
    }
  });

  it('uses alphanumeric logical ids and references only what it declares', () => {
    const ids = [
      ...Object.keys(template.Resources),
      ...Object.keys(template.Outputs),
      ...Object.keys(template.Parameters),
      ...Object.keys(template.Conditions),
    ];
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9]{1,255}$/);
    expect(new Set(ids).size).toBe(ids.length);

    const found = references(template, { refs: [], conditions: [] });
    const declared = new Set([...Object.keys(template.Resources), ...Object.keys(template.Parameters)]);
    for (const target of found.refs) {
      expect(declared.has(target) || target.startsWith('AWS::'), target).toBe(true);
    }
    for (const condition of found.conditions) expect(template.Conditions).toHaveProperty(condition);
    for (const resource of Object.values(template.Resources)) {
      for (const dependency of resource.DependsOn ?? [])
        expect(template.Resources).toHaveProperty(dependency);
    }
  });

  it('prefixes physical names only, keeping logical ids stable', () => {
    const prefixed = generateCloudFormation(topology, { prefix: 'staging-' });
    expect(Object.keys(prefixed.Resources)).toEqual(Object.keys(template.Resources));
    for (const name of Object.keys(topology.topics)) {
      idByName(prefixed, 'AWS::SNS::Topic', 'TopicName', `staging-${name}`);
    }
    for (const name of Object.keys(topology.queues)) {
      idByName(prefixed, 'AWS::SQS::Queue', 'QueueName', `staging-${name}`);
      idByName(prefixed, 'AWS::SQS::Queue', 'QueueName', `staging-${dlqName(name)}`);
    }
  });

  it('notifies an alarm topic given at generation or deploy time, and rejects a malformed one', () => {
    const arn = 'arn:aws:sns:eu-west-1:123456789012:hireflow-oncall';
    expect(generateCloudFormation(topology, { alarmTopicArn: arn }).Parameters.AlarmTopicArn?.Default).toBe(
      arn,
    );
    expect(template.Parameters.AlarmTopicArn?.Default).toBe('');
    const [, alarm] = resourcesOfType(template, 'AWS::CloudWatch::Alarm')[0]!;
    expect(alarm.Properties.AlarmActions).toEqual({
      'Fn::If': ['HasAlarmTopic', [ref('AlarmTopicArn')], ref('AWS::NoValue')],
    });
    expect(() => generateCloudFormation(topology, { alarmTopicArn: 'oncall' })).toThrow(/SNS topic ARN/);
  });

  it('refuses topology names that collide as logical ids, or a subscription to an unknown topic', () => {
    const base = topology.queues['jobs-inbox']!;
    const colliding: Topology = { ...topology, queues: { 'a-inbox': base, a_inbox: base } };
    expect(() => generateCloudFormation(colliding)).toThrow(/logical id/);
    const dangling: Topology = {
      ...topology,
      // The types refuse an unknown topic; the generator refuses one that slips past them.
      queues: { 'x-inbox': { ...base, subscriptions: [{ topic: 'nope', types: ['x.v1'] } as never] } },
    };
    expect(() => generateCloudFormation(dangling)).toThrow(/unknown topic nope/);
  });
});

describe('the stack and the provisioner agree', () => {
  it('on names, queue attributes, delivery policy sources and filter policies', async () => {
    const aws = testAws();
    try {
      const prefix = `${uniqueName('cfn')}-`;
      const provisioned = await provisionTopology(topology, { sns: aws.sns, sqs: aws.sqs, prefix });
      const stack = generateCloudFormation(topology, { prefix });
      const topicIdByArn = new Map(
        Object.values(provisioned.topics).map((t) => [
          t.arn,
          idByName(stack, 'AWS::SNS::Topic', 'TopicName', t.name),
        ]),
      );

      for (const queue of Object.values(provisioned.queues)) {
        const queueId = idByName(stack, 'AWS::SQS::Queue', 'QueueName', queue.name);
        idByName(stack, 'AWS::SQS::Queue', 'QueueName', queue.dlq.name);
        const { Attributes: attrs = {} } = await aws.sqs.send(
          new GetQueueAttributesCommand({ QueueUrl: queue.url, AttributeNames: ['All'] }),
        );
        const props = stack.Resources[queueId]!.Properties;
        expect(String(props.VisibilityTimeout)).toBe(attrs.VisibilityTimeout);
        expect(String(props.MessageRetentionPeriod)).toBe(attrs.MessageRetentionPeriod);
        expect(String(props.ReceiveMessageWaitTimeSeconds)).toBe(attrs.ReceiveMessageWaitTimeSeconds);
        expect((props.RedrivePolicy as { maxReceiveCount: number }).maxReceiveCount).toBe(
          JSON.parse(attrs.RedrivePolicy!).maxReceiveCount,
        );

        const applied = JSON.parse(attrs.Policy!).Statement[0];
        const policy = resourcesOfType(stack, 'AWS::SQS::QueuePolicy').find(
          ([, r]) => JSON.stringify(r.Properties.Queues) === JSON.stringify([ref(queueId)]),
        )![1];
        const generated = (policy.Properties.PolicyDocument as { Statement: Record<string, unknown>[] })
          .Statement[0]!;
        expect(generated.Principal).toEqual(applied.Principal);
        expect(generated.Action).toBe(applied.Action);
        const appliedSources = [applied.Condition.ArnEquals['aws:SourceArn']].flat() as string[];
        expect(generated.Condition).toEqual({
          ArnEquals: {
            'aws:SourceArn': [...new Set(appliedSources)].map((arn) => ref(topicIdByArn.get(arn)!)),
          },
        });
      }

      for (const sub of provisioned.subscriptions) {
        const topicId = idByName(stack, 'AWS::SNS::Topic', 'TopicName', prefix + sub.topic);
        const queueId = idByName(stack, 'AWS::SQS::Queue', 'QueueName', prefix + sub.queue);
        const resource = resourcesOfType(stack, 'AWS::SNS::Subscription').find(
          ([, r]) =>
            JSON.stringify(r.Properties.TopicArn) === JSON.stringify(ref(topicId)) &&
            JSON.stringify(r.Properties.Endpoint) === JSON.stringify(arnOf(queueId)),
        )![1];
        expect(JSON.stringify(resource.Properties.FilterPolicy)).toBe(sub.filterPolicy);
      }
    } finally {
      aws.close();
    }
  });
});

describe('buckets', () => {
  it("creates each topology bucket under the provisioner's name, private and encrypted", () => {
    const stack = generateCloudFormation(topology, { prefix: 'staging-' });
    const buckets = resourcesOfType(stack, 'AWS::S3::Bucket');
    expect(buckets.map(([, r]) => r.Properties.BucketName)).toEqual(
      Object.keys(topology.buckets ?? {}).map((name) => `staging-${name}`),
    );
    expect(buckets[0]![1].Properties).toMatchObject({
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
    });
    expect(stack.Outputs[`${buckets[0]![0]}Name`]).toEqual({
      Description: 'Name of the staging-media bucket',
      Value: { Ref: buckets[0]![0] },
    });
  });
});

describe('infra/aws/stack.json', () => {
  it("is the generator's current output", () => {
    const committed = JSON.parse(readFileSync(new URL('infra/aws/stack.json', root), 'utf8'));
    expect(committed, `infra/aws/stack.json is stale; run ${REGENERATE}`).toEqual(template);
  });

  it('is what the CLI prints', async () => {
    const cli = fileURLToPath(new URL('infra/src/aws/cli.ts', root));
    const { stdout } = await promisify(execFile)(process.execPath, [cli, '--prefix', 'staging-']);
    expect(JSON.parse(stdout)).toEqual(generateCloudFormation(topology, { prefix: 'staging-' }));
    const bad = await promisify(execFile)(process.execPath, [cli, '--prefix', 'Not Valid']).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(bad).toMatchObject({ code: 2, stderr: expect.stringContaining('--prefix') });
  });
});
