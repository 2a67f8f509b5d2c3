// The worker scaling policy (libs/contracts/src/scaling.ts, shared with the
// local autoscaler) in Application Auto Scaling's terms. Three policies on
// one scalable target:
//   1. target tracking on backlog per task (visible ÷ running tasks, metric
//      math as AWS documents for SQS), scale-in disabled;
// The backlog is the whole backlog: the visible messages of every queue the
// worker consumes (its inbox's two lanes, docs/fairness.md) summed, and the
// oldest message of any of them.
//   2. step scaling: +1 worker when the oldest message is older than the
//      policy's maximum age;
//   3. step scaling: −1 worker when one fewer would still be under the
//      backlog target and no message is too old, for the whole quiet period.
import type { WorkerScalingPolicy } from '@hireflow/contracts';
import { Duration, Names } from 'aws-cdk-lib';
import * as appscaling from 'aws-cdk-lib/aws-applicationautoscaling';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as ecs from 'aws-cdk-lib/aws-ecs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface WorkerScalingProps {
  policy: WorkerScalingPolicy;
  cluster: ecs.ICluster;
  service: ecs.FargateService;
  /** The queues the worker consumes: its inbox's lanes. */
  queues: sqs.IQueue[];
}

const PERIOD = Duration.minutes(1);

export class WorkerScaling extends Construct {
  readonly target: appscaling.ScalableTarget;

  constructor(scope: Construct, id: string, props: WorkerScalingProps) {
    super(scope, id);
    const { policy, cluster, service, queues } = props;
    // ECS's own scalable target (the service-linked role), as API services get.
    const taskCount = service.autoScaleTaskCount({
      minCapacity: policy.minWorkers,
      maxCapacity: policy.maxWorkers,
    });
    this.target = taskCount.node.findChild('Target') as appscaling.ScalableTarget;

    // AWS's example statistics: the queue's visible messages summed over the
    // minute, the service's running tasks averaged (Container Insights).
    const visibles = queues.map((queue) =>
      queue.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Sum' }),
    );
    const visible = new cloudwatch.MathExpression({
      expression: visibles.map((_, i) => `visible${i}`).join(' + '),
      usingMetrics: Object.fromEntries(visibles.map((metric, i) => [`visible${i}`, metric])),
      period: PERIOD,
      label: 'Visible messages, all lanes',
    });
    const tasks = new cloudwatch.Metric({
      namespace: 'ECS/ContainerInsights',
      metricName: 'RunningTaskCount',
      dimensionsMap: { ClusterName: cluster.clusterName, ServiceName: service.serviceName },
      period: PERIOD,
      statistic: 'Average',
    });
    const ages = queues.map((queue) =>
      queue.metricApproximateAgeOfOldestMessage({ period: PERIOD, statistic: 'Maximum' }),
    );
    const age = new cloudwatch.MathExpression({
      expression: `MAX([${ages.map((_, i) => `age${i}`).join(', ')}])`,
      usingMetrics: Object.fromEntries(ages.map((metric, i) => [`age${i}`, metric])),
      period: PERIOD,
      label: 'Age of the oldest message, all lanes',
    });

    this.#backlogPerTask(policy, visibles, tasks);

    taskCount.scaleOnMetric('OldestMessage', {
      metric: age,
      adjustmentType: appscaling.AdjustmentType.CHANGE_IN_CAPACITY,
      scalingSteps: [
        { upper: policy.maxMessageAgeSeconds, change: 0 },
        { lower: policy.maxMessageAgeSeconds, change: +1 },
      ],
      cooldown: Duration.seconds(policy.scaleOutCooldownSeconds),
      evaluationPeriods: 1,
    });

    const quietMinutes = policy.quietPeriodBeforeScaleInSeconds / 60;
    taskCount.scaleOnMetric('QuietBacklog', {
      metric: new cloudwatch.MathExpression({
        // With the oldest message too old, report twice the target: above it, so no scale-in.
        expression:
          `IF(age >= ${policy.maxMessageAgeSeconds}, ${2 * policy.backlogPerWorker}, ` +
          'visible / IF(tasks > 1, tasks - 1, 1))',
        usingMetrics: { visible, tasks, age },
        period: PERIOD,
        label: 'Visible messages per worker with one worker fewer',
      }),
      adjustmentType: appscaling.AdjustmentType.CHANGE_IN_CAPACITY,
      scalingSteps: [
        { upper: policy.backlogPerWorker, change: -1 },
        { lower: policy.backlogPerWorker, change: 0 },
      ],
      cooldown: Duration.seconds(policy.scaleInCooldownSeconds),
      evaluationPeriods: quietMinutes,
      datapointsToAlarm: quietMinutes,
    });
  }

  /** The L2 target tracking policy takes one metric, not math: the L1 resource does. */
  #backlogPerTask(
    policy: WorkerScalingPolicy,
    visibles: cloudwatch.Metric[],
    tasks: cloudwatch.Metric,
  ): void {
    const stat = (
      id: string,
      metric: cloudwatch.Metric,
    ): appscaling.CfnScalingPolicy.TargetTrackingMetricDataQueryProperty => {
      const config = metric.toMetricConfig().metricStat!;
      return {
        id,
        metricStat: {
          metric: {
            namespace: config.namespace,
            metricName: config.metricName,
            dimensions: config.dimensions?.map((d) => ({ name: d.name, value: String(d.value) })),
          },
          stat: config.statistic,
        },
        returnData: false,
      };
    };
    const policyId = 'BacklogPerTask';
    const scope = new Construct(this, policyId);
    new appscaling.CfnScalingPolicy(scope, 'Resource', {
      policyName: Names.uniqueId(scope),
      policyType: 'TargetTrackingScaling',
      scalingTargetId: this.target.scalableTargetId,
      targetTrackingScalingPolicyConfiguration: {
        targetValue: policy.backlogPerWorker,
        // Scale-in is the quiet-backlog policy's, with the policy's quiet period.
        disableScaleIn: true,
        scaleOutCooldown: policy.scaleOutCooldownSeconds,
        scaleInCooldown: policy.scaleInCooldownSeconds,
        customizedMetricSpecification: {
          metrics: [
            ...visibles.map((metric, i) => stat(`visible${i}`, metric)),
            stat('tasks', tasks),
            {
              id: 'backlog_per_task',
              expression: `(${visibles.map((_, i) => `visible${i}`).join(' + ')}) / tasks`,
              label: 'Visible messages per running task',
              returnData: true,
            },
          ],
        },
      },
    });
  }
}
