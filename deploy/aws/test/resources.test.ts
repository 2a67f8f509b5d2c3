// What only AWS has: a DLQ and an alarm for every queue, encryption at rest
// and in transit everywhere, and the data stores out of reach.
import { dlqName, topology } from '@hireflow/contracts';
import { describe, expect, it } from 'vitest';
import { synthesize } from './synth.ts';
import {
  idByProperty,
  referencedIds,
  refOf,
  resource,
  resourcesOfType,
  type TemplateJson,
} from './template.ts';

const { template } = synthesize();
const json = template.toJSON() as TemplateJson;
const alertTopicId = idByProperty(json, 'AWS::SNS::Topic', 'TopicName', 'hireflow-alerts');

describe('dead letters', () => {
  const queues = resourcesOfType(json, 'AWS::SQS::Queue');
  const deadLetterIds = new Set(
    queues
      .map(([, q]) => q.Properties.RedrivePolicy?.deadLetterTargetArn)
      .filter(Boolean)
      .map(refOf),
  );

  it('every queue that is not a DLQ redrives into one, after the topology maxReceiveCount', () => {
    const inboxes = queues.filter(([id]) => !deadLetterIds.has(id));
    expect(inboxes.map(([, q]) => q.Properties.QueueName).sort()).toEqual(
      Object.keys(topology.queues).sort(),
    );
    for (const [, queue] of inboxes) {
      const name = queue.Properties.QueueName as string;
      const redrive = queue.Properties.RedrivePolicy;
      expect(redrive?.maxReceiveCount, name).toBe(topology.queues[name]!.maxReceiveCount);
      expect(resource(json, refOf(redrive.deadLetterTargetArn)).Properties.QueueName).toBe(dlqName(name));
    }
    expect(deadLetterIds.size).toBe(Object.keys(topology.queues).length);
  });

  it('every DLQ has an alarm on its first visible message that notifies the alert topic', () => {
    const alarms = resourcesOfType(json, 'AWS::CloudWatch::Alarm');
    for (const dlqId of deadLetterIds) {
      const mine = alarms.filter(([, a]) => referencedIds(a.Properties.Dimensions).has(dlqId));
      expect(mine, dlqId).toHaveLength(1);
      expect(mine[0]![1].Properties).toMatchObject({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        EvaluationPeriods: 1,
        TreatMissingData: 'notBreaching',
      });
      expect([...referencedIds(mine[0]![1].Properties.AlarmActions)]).toEqual([alertTopicId]);
    }
  });
});

describe('encryption', () => {
  it('at rest: queues, topics, the bucket, Postgres, Redis', () => {
    for (const [id, q] of resourcesOfType(json, 'AWS::SQS::Queue'))
      expect(q.Properties.SqsManagedSseEnabled, id).toBe(true);
    for (const [id, t] of resourcesOfType(json, 'AWS::SNS::Topic'))
      expect(t.Properties.KmsMasterKeyId, id).toBeDefined();
    for (const [id, b] of resourcesOfType(json, 'AWS::S3::Bucket')) {
      expect(b.Properties.BucketEncryption?.ServerSideEncryptionConfiguration, id).toBeDefined();
      expect(b.Properties.PublicAccessBlockConfiguration, id).toMatchObject({
        BlockPublicAcls: true,
        RestrictPublicBuckets: true,
      });
    }
    const [, db] = resourcesOfType(json, 'AWS::RDS::DBInstance')[0]!;
    expect(db.Properties).toMatchObject({ StorageEncrypted: true, PubliclyAccessible: false });
    const [, redis] = resourcesOfType(json, 'AWS::ElastiCache::ReplicationGroup')[0]!;
    expect(redis.Properties).toMatchObject({ AtRestEncryptionEnabled: true, TransitEncryptionEnabled: true });
    // BullMQ loses jobs under eviction.
    const [, parameters] = resourcesOfType(json, 'AWS::ElastiCache::ParameterGroup')[0]!;
    expect(parameters.Properties.Properties).toEqual({ 'maxmemory-policy': 'noeviction' });
  });

  it('in transit: every queue, topic and bucket refuses plain HTTP; Redis and Postgres take TLS', () => {
    const guarded = new Set(
      ['AWS::SQS::QueuePolicy', 'AWS::SNS::TopicPolicy', 'AWS::S3::BucketPolicy'].flatMap((type) =>
        resourcesOfType(json, type)
          .filter(([, p]) =>
            [p.Properties.PolicyDocument.Statement]
              .flat()
              .some(
                (s: { Effect: string; Condition?: { Bool?: Record<string, string> } }) =>
                  s.Effect === 'Deny' && s.Condition?.Bool?.['aws:SecureTransport'] === 'false',
              ),
          )
          .flatMap(([, p]) => [
            ...referencedIds(p.Properties.Queues ?? p.Properties.Topics ?? p.Properties.Bucket),
          ]),
      ),
    );
    for (const type of ['AWS::SQS::Queue', 'AWS::SNS::Topic', 'AWS::S3::Bucket']) {
      for (const [id] of resourcesOfType(json, type)) expect(guarded, `${type} ${id}`).toContain(id);
    }
    const redisUrl = resourcesOfType(json, 'AWS::SecretsManager::Secret').find(([, s]) =>
      JSON.stringify(s.Properties.SecretString ?? '').includes('rediss://'),
    );
    expect(redisUrl).toBeDefined();
  });
});

describe('data stores', () => {
  const isolated = new Set(
    resourcesOfType(json, 'AWS::EC2::Subnet')
      .filter(([, s]) =>
        s.Properties.Tags.some(
          (t: { Key: string; Value: string }) => t.Key === 'aws-cdk:subnet-type' && t.Value === 'Isolated',
        ),
      )
      .map(([id]) => id),
  );

  it('live in the isolated subnets', () => {
    expect(isolated.size).toBe(2);
    const [, dbSubnets] = resourcesOfType(json, 'AWS::RDS::DBSubnetGroup')[0]!;
    expect(referencedIds(dbSubnets.Properties.SubnetIds)).toEqual(isolated);
    const [, cacheSubnets] = resourcesOfType(json, 'AWS::ElastiCache::SubnetGroup')[0]!;
    expect(referencedIds(cacheSubnets.Properties.SubnetIds)).toEqual(isolated);
  });

  it("take connections from the services' security groups only", () => {
    const serviceGroups = new Set(
      resourcesOfType(json, 'AWS::ECS::Service').flatMap(([, s]) => [
        ...referencedIds(s.Properties.NetworkConfiguration.AwsvpcConfiguration.SecurityGroups),
      ]),
    );
    expect(serviceGroups.size).toBe(4);
    const [dbId] = resourcesOfType(json, 'AWS::RDS::DBInstance')[0]!;
    const [redisId] = resourcesOfType(json, 'AWS::ElastiCache::ReplicationGroup')[0]!;
    for (const [storeId, port] of [
      [dbId, 5432],
      [redisId, 6379],
    ] as const) {
      const groups = referencedIds(
        resource(json, storeId).Properties.VPCSecurityGroups ??
          resource(json, storeId).Properties.SecurityGroupIds,
      );
      const rules = resourcesOfType(json, 'AWS::EC2::SecurityGroupIngress').filter(([, r]) =>
        groups.has(refOf(r.Properties.GroupId)),
      );
      expect(new Set(rules.map(([, r]) => refOf(r.Properties.SourceSecurityGroupId)))).toEqual(serviceGroups);
      for (const [, rule] of rules)
        expect([rule.Properties.FromPort, rule.Properties.ToPort]).toEqual([port, port]);
      for (const group of groups)
        expect(resource(json, group).Properties.SecurityGroupIngress ?? []).toEqual([]);
    }
  });
});
