// Least privilege per service: a task role touches its own topic, queue, DLQ
// and bucket, with the calls its code makes, and nothing of another service;
// an execution role reads its own task's secrets only.
import { describe, expect, it } from 'vitest';
import { accessViolations, roleStatements, serviceAccess } from './access.ts';
import { synthesize } from './synth.ts';
import { referencedIds, resourcesOfType, statementsOf, type TemplateJson } from './template.ts';

const { stack, template } = synthesize();
const json = template.toJSON() as TemplateJson;

describe('the access rule catches', () => {
  it("a role that can consume another service's queue", () => {
    const widened = synthesize({}, {}, (s) => {
      const matchingInbox = s.messaging.inboxes.get('matching-inbox')!.queue;
      matchingInbox.grantConsumeMessages(s.deployments.get('jobs')!.taskRole);
    });
    const violations = accessViolations(
      widened.template.toJSON() as TemplateJson,
      serviceAccess(widened.stack),
    );
    expect(violations).toContain('jobs can sqs:ReceiveMessage on matching-inbox');
    expect(violations).toContain('jobs can sqs:DeleteMessage on matching-inbox');
  });

  it('a publish to any topic, a wildcard action, an admin call on its own queue', () => {
    const widened = synthesize({}, {}, (s) => {
      const jobs = s.deployments.get('jobs')!.taskRole;
      s.messaging.topics.get('matching-events')!.grantPublish(jobs);
      s.messaging.inboxes.get('jobs-inbox')!.queue.grant(jobs, 'sqs:PurgeQueue');
      s.messaging.inboxes.get('jobs-inbox')!.queue.grant(jobs, 'sqs:*');
    });
    const violations = accessViolations(
      widened.template.toJSON() as TemplateJson,
      serviceAccess(widened.stack),
    );
    expect(violations).toContain('jobs can sns:Publish on matching-events');
    expect(violations).toContain('jobs can sqs:PurgeQueue on jobs-inbox (not a call the service makes)');
    expect(violations.some((v) => v.startsWith('jobs can sqs:* on') && v.endsWith('(wildcard action)'))).toBe(
      true,
    );
  });
});

describe('each service role', () => {
  it('touches only its own channels, with the calls its code makes', () => {
    const access = serviceAccess(stack);
    expect(access.map((a) => a.service).sort()).toEqual(['jobs', 'matching', 'media', 'notifications']);
    expect(accessViolations(json, access)).toEqual([]);
  });

  it('can do what the code needs: consume its inbox, dead-letter, publish, use its bucket', () => {
    for (const { service, roleId, owned } of serviceAccess(stack)) {
      const granted = new Set(
        roleStatements(json, roleId).flatMap((s) =>
          [...referencedIds(s.Resource)].flatMap((id) => [s.Action].flat().map((a) => `${a} ${id}`)),
        ),
      );
      for (const { id, kind } of owned) {
        const needed = {
          inbox: [
            'sqs:ReceiveMessage',
            'sqs:DeleteMessage',
            'sqs:ChangeMessageVisibility',
            'sqs:GetQueueUrl',
          ],
          dlq: ['sqs:SendMessage', 'sqs:GetQueueUrl'],
          topic: ['sns:Publish'],
          bucket: ['s3:GetObject', 's3:PutObject', 's3:ListBucket'],
          bucketObjects: [],
        }[kind];
        for (const action of needed)
          expect(granted, `${service}: ${action} on ${id}`).toContain(`${action} ${id}`);
      }
      // notifications publishes nothing: it has no topic, and so no publish grant.
      expect(owned.some((o) => o.kind === 'topic')).toBe(service !== 'notifications');
    }
  });
});

describe('each execution role', () => {
  it('reads only the secrets of its own task definition, and touches no channel', () => {
    const tasks = resourcesOfType(json, 'AWS::ECS::TaskDefinition');
    expect(tasks.length).toBeGreaterThan(0);
    for (const [taskId, task] of tasks) {
      const roleId = [...referencedIds(task.Properties.ExecutionRoleArn)][0]!;
      const ownSecrets = new Set(
        task.Properties.ContainerDefinitions.flatMap((c: { Secrets?: { ValueFrom: unknown }[] }) =>
          (c.Secrets ?? []).flatMap((s) => [...referencedIds(s.ValueFrom)]),
        ),
      );
      expect(ownSecrets.size, taskId).toBeGreaterThanOrEqual(3);
      for (const statement of roleStatements(json, roleId)) {
        for (const action of [statement.Action].flat()) {
          expect(action, `${taskId}: ${action}`).not.toMatch(/^(sqs|sns|s3):/);
          if (!action.startsWith('secretsmanager:')) continue;
          for (const id of referencedIds(statement.Resource))
            expect(ownSecrets, `${taskId} reads ${id}`).toContain(id);
        }
      }
    }
  });

  it("keeps each service's database URL to that service", () => {
    const urls = new Map<string, string>();
    for (const [taskId, task] of resourcesOfType(json, 'AWS::ECS::TaskDefinition')) {
      const app = task.Properties.ContainerDefinitions.find((c: { Name: string }) => c.Name === 'app');
      const service = app.Environment.find((e: { Name: string }) => e.Name === 'SERVICE').Value;
      const secret = [
        ...referencedIds(app.Secrets.find((s: { Name: string }) => s.Name === 'DATABASE_URL').ValueFrom),
      ][0]!;
      expect(urls.get(service) ?? secret, taskId).toBe(secret);
      urls.set(service, secret);
    }
    expect(new Set(urls.values()).size).toBe(urls.size);
  });
});

describe('resource policies', () => {
  it('let SNS deliver to a queue only from the topics it subscribes to, and refuse plain HTTP everywhere', () => {
    for (const type of ['AWS::SQS::QueuePolicy', 'AWS::SNS::TopicPolicy', 'AWS::S3::BucketPolicy']) {
      for (const [id, policy] of resourcesOfType(json, type)) {
        const statements = statementsOf(policy.Properties.PolicyDocument);
        expect(
          statements.some(
            (s) => s.Effect === 'Deny' && s.Condition?.Bool?.['aws:SecureTransport'] === 'false',
          ),
          id,
        ).toBe(true);
        for (const s of statements.filter((st) => st.Effect === 'Allow')) {
          expect(['sns.amazonaws.com', 'cloudwatch.amazonaws.com'], id).toContain(s.Principal?.Service);
          expect(s.Condition, id).toBeDefined();
        }
      }
    }
  });
});

describe('API10: the topics', () => {
  it("deny sns:Publish to every principal but the producer's task role", () => {
    const access = serviceAccess(stack);
    const policies = resourcesOfType(json, 'AWS::SNS::TopicPolicy');
    const topics = [...stack.messaging.topics.entries()];
    expect(topics.length).toBe(3);
    for (const [name, topic] of topics) {
      const topicId = stack.getLogicalId(topic.node.defaultChild as never);
      const policy = policies.find(([, p]) =>
        (p.Properties.Topics as unknown[]).some((ref) => referencedIds(ref).has(topicId)),
      );
      expect(policy, name).toBeDefined();
      const deny = (
        policy![1].Properties.PolicyDocument.Statement as {
          Sid?: string;
          Condition: { ArnNotEquals: Record<string, unknown> };
        }[]
      ).find((statement) => statement.Sid === 'OnlyTheProducerPublishes');
      expect(deny, name).toMatchObject({ Effect: 'Deny', Principal: { AWS: '*' }, Action: 'sns:Publish' });
      const producer = name.replace(/-events$/, '');
      const roleId = access.find((a) => a.service === producer)!.roleId;
      expect([...referencedIds(deny!.Condition.ArnNotEquals['aws:PrincipalArn'])]).toEqual([roleId]);
    }
  });
});
