// `-c subscribers=…`: a subscriber outside this repository gets its inbox,
// DLQ and filter policy on the stack's topics, and a role that can consume
// them and nothing else; a bad value stops the synth naming the key.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../src/config.ts';
import { synthesize } from './synth.ts';
import {
  idByProperty,
  refOf,
  resource,
  resourcesOfType,
  statementsOf,
  type TemplateJson,
} from './template.ts';

const { template } = synthesize({
  subscribers: 'analytics:job.posted.v1,candidate.registered.v1;crm:job.closed.v1',
});
const json = template.toJSON() as TemplateJson;

describe('external subscribers from CDK context', () => {
  it('each gets an inbox with its DLQ, subscribed to the topic of its types with their filter policy', () => {
    const queue = idByProperty(json, 'AWS::SQS::Queue', 'QueueName', 'analytics-inbox');
    const dlq = idByProperty(json, 'AWS::SQS::Queue', 'QueueName', 'analytics-inbox-dlq');
    expect(refOf(resource(json, queue).Properties.RedrivePolicy.deadLetterTargetArn)).toBe(dlq);
    const subscriptions = resourcesOfType(json, 'AWS::SNS::Subscription').filter(
      ([, r]) => refOf(r.Properties.Endpoint) === queue,
    );
    expect(subscriptions).toHaveLength(1);
    const [, subscription] = subscriptions[0]!;
    expect(refOf(subscription.Properties.TopicArn)).toBe(
      idByProperty(json, 'AWS::SNS::Topic', 'TopicName', 'jobs-events'),
    );
    expect(subscription.Properties.FilterPolicy).toEqual({
      type: ['candidate.registered.v1', 'job.posted.v1'],
    });
    expect(subscription.Properties.RawMessageDelivery).toBe(true);
    idByProperty(json, 'AWS::SQS::Queue', 'QueueName', 'crm-inbox');
  });

  it('each gets a role that may consume its own inbox and DLQ, with the calls a consumer makes, and nothing else', () => {
    const queue = idByProperty(json, 'AWS::SQS::Queue', 'QueueName', 'analytics-inbox');
    const dlq = idByProperty(json, 'AWS::SQS::Queue', 'QueueName', 'analytics-inbox-dlq');
    const roleId = refOf(json.Outputs!.AnalyticsSubscriberRoleArn!.Value);
    const role = resource(json, roleId);
    expect(statementsOf(role.Properties.AssumeRolePolicyDocument).map((s) => s.Action)).toEqual([
      'sts:AssumeRole',
    ]);
    const statements = (role.Properties.Policies as { PolicyDocument: unknown }[]).flatMap((p) =>
      statementsOf(p.PolicyDocument),
    );
    expect(statements.map((s) => [s.Sid, refOf(s.Resource)])).toEqual([
      ['ConsumeOwnInbox', queue],
      ['DeadLetterOwnInbox', dlq],
    ]);
    expect(statements[0]!.Action).toEqual(
      expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:DeleteMessage']),
    );
    expect([statements.flatMap((s) => s.Action)].flat()).not.toContain('sqs:PurgeQueue');
    // No other policy in the stack is attached to it.
    const attached = resourcesOfType(json, 'AWS::IAM::Policy').filter(([, p]) =>
      (p.Properties.Roles as unknown[]).some((r) => refOf(r) === roleId),
    );
    expect(attached).toEqual([]);
    // The crm role touches crm-inbox, not analytics'.
    const crm = resource(json, refOf(json.Outputs!.CrmSubscriberRoleArn!.Value));
    const crmResources = (crm.Properties.Policies as { PolicyDocument: unknown }[])
      .flatMap((p) => statementsOf(p.PolicyDocument))
      .map((s) => refOf(s.Resource));
    expect(crmResources).not.toContain(queue);
    expect(crmResources).toContain(idByProperty(json, 'AWS::SQS::Queue', 'QueueName', 'crm-inbox'));
  });

  it('a name of ours or an unknown type stops the synth, naming the key and the problem', () => {
    let error: unknown;
    try {
      synthesize({ subscribers: 'media:job.posted.v1;crm:job.nope.v1' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const issues = (error as ConfigError).issues;
    expect(issues.map((i) => i.variable)).toEqual(['subscribers', 'subscribers']);
    expect(issues.map((i) => i.message)).toEqual([
      'media: name: media is taken by Hireflow itself',
      'crm: events: job.nope.v1 is not an event type of the catalog',
    ]);
  });
});
