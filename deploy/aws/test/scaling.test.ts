// Worker scaling on AWS is the shared policy (libs/contracts/src/scaling.ts) in
// Application Auto Scaling's terms: read from the template, compared with
// the policy file, and shown to follow it when it changes.
import { type ServiceName, type WorkerScalingPolicy, workerScaling } from '@hireflow/contracts';
import type { CfnElement } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { deploymentPlan, type HireflowStack } from '../src/index.ts';
import { type Synthesized, synthesize } from './synth.ts';
import { type ResourceJson, referencedIds, resourcesOfType, type TemplateJson } from './template.ts';

interface ScalingPicture {
  min: number;
  max: number;
  targetTracking: ResourceJson['Properties'];
  steps: { policy: ResourceJson['Properties']; alarm: ResourceJson['Properties'] }[];
}

const idOf = (stack: HireflowStack, construct: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(construct.node.defaultChild as CfnElement);

/** The scalable target of a Fargate service, its policies and their alarms. */
function scalingOf(json: TemplateJson, serviceId: string): ScalingPicture {
  const targets = resourcesOfType(json, 'AWS::ApplicationAutoScaling::ScalableTarget').filter(([, t]) =>
    referencedIds(t.Properties.ResourceId).has(serviceId),
  );
  expect(targets, serviceId).toHaveLength(1);
  const [targetId, target] = targets[0]!;
  const policies = resourcesOfType(json, 'AWS::ApplicationAutoScaling::ScalingPolicy').filter(([, p]) =>
    referencedIds(p.Properties.ScalingTargetId).has(targetId),
  );
  const tracking = policies.filter(([, p]) => p.Properties.PolicyType === 'TargetTrackingScaling');
  expect(tracking, serviceId).toHaveLength(1);
  const steps = policies
    .filter(([, p]) => p.Properties.PolicyType === 'StepScaling')
    .map(([policyId, p]) => {
      const alarms = resourcesOfType(json, 'AWS::CloudWatch::Alarm').filter(([, a]) =>
        referencedIds(a.Properties.AlarmActions).has(policyId),
      );
      expect(alarms, policyId).toHaveLength(1);
      return { policy: p.Properties, alarm: alarms[0]![1].Properties };
    });
  return {
    min: target.Properties.MinCapacity,
    max: target.Properties.MaxCapacity,
    targetTracking: tracking[0]![1].Properties,
    steps,
  };
}

/** `MetricStat`s of a metric list by id, metric name and the ids its dimensions refer to. */
const metricsById = (
  metrics: { Id: string; MetricStat?: { Metric: Record<string, unknown>; Stat: string } }[],
) =>
  new Map(
    metrics
      .filter((m) => m.MetricStat)
      .map((m) => [
        m.Id,
        {
          name: m.MetricStat!.Metric.MetricName,
          namespace: m.MetricStat!.Metric.Namespace,
          stat: m.MetricStat!.Stat,
          refs: referencedIds(m.MetricStat!.Metric.Dimensions),
        },
      ]),
  );

function expectFollows({ stack, template }: Synthesized, service: ServiceName, policy: WorkerScalingPolicy) {
  const json = template.toJSON() as TemplateJson;
  const deployment = stack.deployments.get(service)!;
  const workerId = idOf(stack, deployment.roles.get('worker')!);
  // Both lanes' queues of its inbox (docs/fairness.md): the backlog is the whole backlog.
  const queueIds = [`${service}-inbox`, `${service}-inbox-bulk`]
    .map((name) => idOf(stack, stack.messaging.inboxes.get(name)!.queue))
    .sort();
  const clusterId = idOf(stack, stack.cluster);
  const scaling = scalingOf(json, workerId);
  expect([scaling.min, scaling.max]).toEqual([policy.minWorkers, policy.maxWorkers]);

  // 1. Backlog per task: visible messages of its own inbox's queues ÷ running tasks of its own worker service.
  const tracking = scaling.targetTracking.TargetTrackingScalingPolicyConfiguration;
  expect(tracking).toMatchObject({
    TargetValue: policy.backlogPerWorker,
    DisableScaleIn: true,
    ScaleOutCooldown: policy.scaleOutCooldownSeconds,
  });
  const { Metrics: metrics } = tracking.CustomizedMetricSpecification;
  const byId = metricsById(metrics);
  const returned = metrics.filter((m: { ReturnData?: boolean }) => m.ReturnData !== false);
  expect(returned).toHaveLength(1);
  expect(returned[0].Expression).toBe('(visible0 + visible1) / tasks');
  /** The queues summed (or maxed) by a list of metric ids, each a metric of `name` on one queue. */
  const queuesOf = (inputs: ReturnType<typeof metricsById>, ids: string[], name: string) =>
    ids
      .flatMap((id) => {
        expect(inputs.get(id), id).toMatchObject({ name, namespace: 'AWS/SQS' });
        return [...inputs.get(id)!.refs];
      })
      .sort();
  expect(queuesOf(byId, ['visible0', 'visible1'], 'ApproximateNumberOfMessagesVisible')).toEqual(queueIds);
  expect(byId.get('tasks')).toMatchObject({
    name: 'RunningTaskCount',
    namespace: 'ECS/ContainerInsights',
  });
  expect([...byId.get('tasks')!.refs].sort()).toEqual([clusterId, workerId].sort());

  // 2. The oldest message of either queue too old adds one worker.
  const expressionOf = (alarm: ResourceJson['Properties']) =>
    alarm.Metrics.find((m: { ReturnData?: boolean }) => m.ReturnData).Expression;
  const age = scaling.steps.filter((s) => expressionOf(s.alarm) === 'MAX([age0, age1])');
  expect(age).toHaveLength(1);
  expect(age[0]!.alarm).toMatchObject({
    Threshold: policy.maxMessageAgeSeconds,
    ComparisonOperator: 'GreaterThanOrEqualToThreshold',
  });
  const ageInputs = metricsById(age[0]!.alarm.Metrics);
  expect(queuesOf(ageInputs, ['age0', 'age1'], 'ApproximateAgeOfOldestMessage')).toEqual(queueIds);
  expect(ageInputs.get('age0')).toMatchObject({ stat: 'Maximum' });
  expect(age[0]!.policy.StepScalingPolicyConfiguration).toMatchObject({
    AdjustmentType: 'ChangeInCapacity',
    Cooldown: policy.scaleOutCooldownSeconds,
    StepAdjustments: [{ MetricIntervalLowerBound: 0, ScalingAdjustment: 1 }],
  });

  // 3. One worker fewer, after the quiet period, when that fleet would still be under the target.
  const quiet = scaling.steps.filter((s) => s !== age[0]);
  expect(quiet).toHaveLength(1);
  const minutes = policy.quietPeriodBeforeScaleInSeconds / 60;
  expect(quiet[0]!.alarm).toMatchObject({
    Threshold: policy.backlogPerWorker,
    ComparisonOperator: 'LessThanOrEqualToThreshold',
    EvaluationPeriods: minutes,
    DatapointsToAlarm: minutes,
  });
  expect(expressionOf(quiet[0]!.alarm)).toBe(
    `IF(age >= ${policy.maxMessageAgeSeconds}, ${2 * policy.backlogPerWorker}, visible / IF(tasks > 1, tasks - 1, 1))`,
  );
  const quietMetrics: { Id: string; Expression?: string }[] = quiet[0]!.alarm.Metrics;
  expect(quietMetrics.find((m) => m.Id === 'visible')?.Expression).toBe('visible0 + visible1');
  expect(quietMetrics.find((m) => m.Id === 'age')?.Expression).toBe('MAX([age0, age1])');
  const inputs = metricsById(quiet[0]!.alarm.Metrics);
  expect(queuesOf(inputs, ['visible0', 'visible1'], 'ApproximateNumberOfMessagesVisible')).toEqual(queueIds);
  expect(queuesOf(inputs, ['age0', 'age1'], 'ApproximateAgeOfOldestMessage')).toEqual(queueIds);
  expect(inputs.get('tasks')?.name).toBe('RunningTaskCount');
  expect(quiet[0]!.policy.StepScalingPolicyConfiguration).toMatchObject({
    Cooldown: policy.scaleInCooldownSeconds,
    StepAdjustments: [{ MetricIntervalUpperBound: 0, ScalingAdjustment: -1 }],
  });
}

const synthesized = synthesize();

describe('worker services scale by the shared policy', () => {
  it.each(Object.keys(workerScaling) as ServiceName[])('%s', (service) => {
    expectFollows(synthesized, service, workerScaling[service]);
  });

  it('and follow it when it changes (nothing is copied into the stack)', () => {
    const changed = {
      ...workerScaling,
      matching: {
        minWorkers: 2,
        // One more than the policy: the default database class holds 33 tasks' pools, not more (capacity.test.ts).
        maxWorkers: 7,
        backlogPerWorker: 42,
        maxMessageAgeSeconds: 77,
        scaleOutCooldownSeconds: 30,
        scaleInCooldownSeconds: 400,
        quietPeriodBeforeScaleInSeconds: 1200,
      },
    };
    expectFollows(synthesize({}, { workerScaling: changed }), 'matching', changed.matching);
  });

  it('needs Container Insights, the source of RunningTaskCount', () => {
    const [, cluster] = resourcesOfType(
      synthesized.template.toJSON() as TemplateJson,
      'AWS::ECS::Cluster',
    )[0]!;
    expect(cluster.Properties.ClusterSettings).toContainEqual({
      Name: 'containerInsights',
      Value: 'enabled',
    });
  });
});

describe('API services', () => {
  it('scale on CPU between their planned bounds', () => {
    const json = synthesized.template.toJSON() as TemplateJson;
    for (const [service, plan] of Object.entries(deploymentPlan)) {
      const api = synthesized.stack.deployments.get(service as ServiceName)!.roles.get('api');
      expect(Boolean(api), service).toBe(Boolean(plan.api));
      if (!api || !plan.api) continue;
      const apiId = idOf(synthesized.stack, api);
      const targets = resourcesOfType(json, 'AWS::ApplicationAutoScaling::ScalableTarget').filter(([, t]) =>
        referencedIds(t.Properties.ResourceId).has(apiId),
      );
      expect(targets).toHaveLength(1);
      expect(targets[0]![1].Properties).toMatchObject({
        MinCapacity: plan.api.minTasks,
        MaxCapacity: plan.api.maxTasks,
      });
      const policy = resourcesOfType(json, 'AWS::ApplicationAutoScaling::ScalingPolicy').find(([, p]) =>
        referencedIds(p.Properties.ScalingTargetId).has(targets[0]![0]),
      )![1];
      expect(policy.Properties.TargetTrackingScalingPolicyConfiguration).toMatchObject({
        PredefinedMetricSpecification: { PredefinedMetricType: 'ECSServiceAverageCPUUtilization' },
        TargetValue: plan.api.cpuTargetPercent,
      });
    }
  });
});
