// "One definition, used locally and on AWS": the emulator gets the topology
// from tools/ops/src/provision.ts, the stack from the CDK. Both are read back here
// (the emulator through its API, the stack from its template) and compared;
// nothing is listed twice.
import {
  GetSubscriptionAttributesCommand,
  ListSubscriptionsByTopicCommand,
  ListTopicsCommand,
} from '@aws-sdk/client-sns';
import { GetQueueAttributesCommand, ListQueuesCommand } from '@aws-sdk/client-sqs';
import { topology } from '@hireflow/contracts';
import { type TestAws, testAws, testTopology } from '@hireflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Synthesized, synthesize } from './synth.ts';
import { refOf as ref, resourcesOfType, statementsOf, type TemplateJson } from './template.ts';

interface Channels {
  topics: string[];
  queues: Record<
    string,
    {
      visibility: number;
      retention: number;
      wait: number;
      redrive?: { dlq: string; maxReceiveCount: number };
      senders: string[];
    }
  >;
  subscriptions: { topic: string; queue: string; raw: boolean; filterPolicy: unknown; scope: string }[];
}

const nameOfArn = (arn: string) => arn.split(':').at(-1)!;

/** What the emulator holds under `prefix`, through the same APIs a service would use. */
async function emulatorChannels(aws: TestAws, prefix: string): Promise<Channels> {
  const topicArns = ((await aws.sns.send(new ListTopicsCommand({}))).Topics ?? [])
    .map((t) => t.TopicArn!)
    .filter((arn) => nameOfArn(arn).startsWith(prefix));
  const queueUrls = (await aws.sqs.send(new ListQueuesCommand({ QueueNamePrefix: prefix }))).QueueUrls ?? [];
  const queues: Channels['queues'] = {};
  const nameByQueueArn = new Map<string, string>();
  for (const url of queueUrls) {
    const { Attributes: a = {} } = await aws.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] }),
    );
    const name = nameOfArn(a.QueueArn!);
    nameByQueueArn.set(a.QueueArn!, name);
    const redrive = a.RedrivePolicy ? JSON.parse(a.RedrivePolicy) : undefined;
    const policy = a.Policy ? JSON.parse(a.Policy) : { Statement: [] };
    const senders = (
      policy.Statement as {
        Principal?: { Service?: string };
        Condition?: { ArnEquals?: Record<string, string | string[]> };
      }[]
    )
      .filter((s) => s.Principal?.Service === 'sns.amazonaws.com')
      .flatMap((s) => [s.Condition?.ArnEquals?.['aws:SourceArn'] ?? []].flat())
      .map(nameOfArn);
    queues[name] = {
      visibility: Number(a.VisibilityTimeout),
      retention: Number(a.MessageRetentionPeriod),
      wait: Number(a.ReceiveMessageWaitTimeSeconds ?? 0),
      ...(redrive
        ? {
            redrive: {
              dlq: nameOfArn(redrive.deadLetterTargetArn),
              maxReceiveCount: Number(redrive.maxReceiveCount),
            },
          }
        : {}),
      senders: [...new Set(senders)].sort(),
    };
  }
  const subscriptions: Channels['subscriptions'] = [];
  for (const topicArn of topicArns) {
    const listed = await aws.sns.send(new ListSubscriptionsByTopicCommand({ TopicArn: topicArn }));
    for (const sub of listed.Subscriptions ?? []) {
      const { Attributes: a = {} } = await aws.sns.send(
        new GetSubscriptionAttributesCommand({ SubscriptionArn: sub.SubscriptionArn! }),
      );
      subscriptions.push({
        topic: nameOfArn(topicArn),
        queue: nameByQueueArn.get(sub.Endpoint!) ?? sub.Endpoint!,
        raw: a.RawMessageDelivery === 'true',
        filterPolicy: JSON.parse(a.FilterPolicy ?? 'null'),
        scope: a.FilterPolicyScope ?? 'MessageAttributes',
      });
    }
  }
  return { topics: topicArns.map(nameOfArn).sort(), queues, subscriptions: sortSubscriptions(subscriptions) };
}

/** The same picture from the synthesized template (logical ids resolved to physical names). */
function stackChannels(json: TemplateJson, exclude: (topicName: string) => boolean): Channels {
  const topicName = new Map(
    resourcesOfType(json, 'AWS::SNS::Topic').map(([id, r]) => [id, r.Properties.TopicName as string]),
  );
  const queueName = new Map(
    resourcesOfType(json, 'AWS::SQS::Queue').map(([id, r]) => [id, r.Properties.QueueName as string]),
  );
  const queues: Channels['queues'] = {};
  for (const [id, r] of resourcesOfType(json, 'AWS::SQS::Queue')) {
    const p = r.Properties as Record<string, unknown>;
    const redrive = p.RedrivePolicy as { deadLetterTargetArn: unknown; maxReceiveCount: number } | undefined;
    const senders = resourcesOfType(json, 'AWS::SQS::QueuePolicy')
      .filter(([, policy]) => (policy.Properties.Queues as unknown[]).some((q) => ref(q) === id))
      .flatMap(([, policy]) => statementsOf(policy.Properties.PolicyDocument))
      .filter((s) => s.Effect === 'Allow' && s.Principal?.Service === 'sns.amazonaws.com')
      .flatMap((s) => [s.Condition?.ArnEquals?.['aws:SourceArn']].flat())
      .map((t) => topicName.get(ref(t))!);
    queues[queueName.get(id)!] = {
      visibility: Number(p.VisibilityTimeout ?? 30),
      retention: Number(p.MessageRetentionPeriod),
      wait: Number(p.ReceiveMessageWaitTimeSeconds ?? 0),
      ...(redrive
        ? {
            redrive: {
              dlq: queueName.get(ref(redrive.deadLetterTargetArn))!,
              maxReceiveCount: redrive.maxReceiveCount,
            },
          }
        : {}),
      senders: [...new Set(senders)].sort(),
    };
  }
  const subscriptions = resourcesOfType(json, 'AWS::SNS::Subscription').map(([, r]) => ({
    topic: topicName.get(ref(r.Properties.TopicArn))!,
    queue: queueName.get(ref(r.Properties.Endpoint))!,
    raw: r.Properties.RawMessageDelivery === true || r.Properties.RawMessageDelivery === 'true',
    filterPolicy: r.Properties.FilterPolicy,
    scope: (r.Properties.FilterPolicyScope as string | undefined) ?? 'MessageAttributes',
  }));
  return {
    topics: [...topicName.values()].filter((name) => !exclude(name)).sort(),
    queues,
    subscriptions: sortSubscriptions(subscriptions.filter((s) => !exclude(s.topic))),
  };
}

function sortSubscriptions(subs: Channels['subscriptions']): Channels['subscriptions'] {
  return subs.sort((a, b) => `${a.topic} ${a.queue}`.localeCompare(`${b.topic} ${b.queue}`));
}

describe('the stack and the emulator get the same topology', () => {
  let aws: TestAws;
  let prefix: string;
  let synthesized: Synthesized;
  let emulator: Channels;

  beforeAll(async () => {
    aws = testAws();
    prefix = (await testTopology(aws, 'cdk')).prefix;
    emulator = await emulatorChannels(aws, prefix);
    synthesized = synthesize({ prefix });
    // Eight queues and their DLQs provisioned one call at a time, then a synth: on the loaded
    // shared machine that took over the default minute.
  }, 180_000);
  afterAll(() => aws.close());

  it('provisions something to compare: every topic, queue, DLQ and subscription of the definition', () => {
    expect(emulator.topics).toHaveLength(Object.keys(topology.topics).length);
    expect(Object.keys(emulator.queues)).toHaveLength(2 * Object.keys(topology.queues).length);
    expect(emulator.subscriptions).toHaveLength(
      Object.values(topology.queues).reduce((n, q) => n + q.subscriptions.length, 0),
    );
  });

  it('topics, queues (attributes, redrive, who may send) and subscriptions (raw delivery, filter policies) are equal', () => {
    // The alert topic is the stack's own (CloudWatch alarms need one); the emulator has no alarms.
    const alertTopic = `${prefix}hireflow-alerts`;
    const stack = stackChannels(synthesized.template.toJSON() as TemplateJson, (name) => name === alertTopic);
    expect(stack).toEqual(emulator);
    expect(Object.keys(stack.queues).every((name) => name.startsWith(prefix))).toBe(true);
  });

  it('would tell a stack built from another definition apart', () => {
    const inbox = topology.queues['notifications-inbox']!;
    const [first, ...rest] = inbox.subscriptions;
    const narrower = {
      ...topology,
      queues: {
        ...topology.queues,
        'notifications-inbox': {
          ...inbox,
          subscriptions: [{ ...first!, types: first!.types.slice(1) }, ...rest],
        },
      },
    } as typeof topology;
    const other = synthesize({ prefix }, { topology: narrower }).template.toJSON() as TemplateJson;
    const alertTopic = `${prefix}hireflow-alerts`;
    const differs = stackChannels(other, (name) => name === alertTopic);
    expect(differs).not.toEqual(emulator);
    expect(differs.topics).toEqual(emulator.topics);
  });
});
