// The topology (libs/contracts/src/topology.ts) on AWS: the same names,
// attributes, redrive and filter policies that tools/ops/src/provision.ts applies
// to the emulator, so a service configured for one finds its channels on the
// other. Plus what only AWS has: encryption at rest, TLS-only access, an
// alarm on every dead-letter queue and the topic those alarms notify.
import { dlqName, filterPolicy, type TopicName, type Topology } from '@hireflow/contracts';
import { CfnOutput, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface MessagingProps {
  topology: Topology;
  /** Prepended to every topic, queue and alarm name (HIREFLOW_TOPOLOGY_PREFIX). */
  prefix: string;
  /** Subscribed to the alert topic when given. */
  alertEmail?: string | undefined;
}

export interface Inbox {
  queue: sqs.Queue;
  deadLetterQueue: sqs.Queue;
  deadLetterAlarm: cloudwatch.Alarm;
}

/** SQS and CloudWatch report queue depth per minute; one datapoint above zero is enough. */
const ALARM_PERIOD = Duration.minutes(1);

/** A construct id from a topology name: `jobs-inbox` → `JobsInbox`. */
export const constructId = (...parts: string[]): string =>
  parts
    .flatMap((part) => part.split(/[^A-Za-z0-9]+/))
    .filter((word) => word.length > 0)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('');

export class Messaging extends Construct {
  readonly topics = new Map<TopicName, sns.Topic>();
  readonly inboxes = new Map<string, Inbox>();
  readonly buckets = new Map<string, s3.Bucket>();
  readonly alertTopic: sns.Topic;

  constructor(scope: Construct, id: string, props: MessagingProps) {
    super(scope, id);
    const { topology, prefix } = props;
    this.alertTopic = this.#alertTopic(prefix, props.alertEmail);

    // SNS's AWS-managed key: publishers need no key grant, and SQS-managed
    // encryption on the queues needs none for delivery either.
    const snsKey = kms.Alias.fromAliasName(this, 'SnsManagedKey', 'alias/aws/sns');
    for (const name of Object.keys(topology.topics) as TopicName[]) {
      const topic = new sns.Topic(this, constructId(name, 'Topic'), {
        topicName: prefix + name,
        masterKey: snsKey,
        enforceSSL: true,
      });
      this.topics.set(name, topic);
      output(this, `${constructId(name)}TopicArn`, topic.topicArn, `ARN of ${prefix}${name}`);
    }

    for (const [name, def] of Object.entries(topology.queues)) {
      const retentionPeriod = Duration.seconds(topology.messageRetentionSeconds);
      const deadLetterQueue = new sqs.Queue(this, constructId(name, 'DeadLetterQueue'), {
        queueName: prefix + dlqName(name),
        retentionPeriod,
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
      });
      // The visibility timeout is the starting value: consumers resize it from
      // their measured p99, and a stack update resets it only when this changes.
      const queue = new sqs.Queue(this, constructId(name, 'Queue'), {
        queueName: prefix + name,
        visibilityTimeout: Duration.seconds(def.visibilityTimeoutSeconds),
        receiveMessageWaitTime: Duration.seconds(topology.receiveWaitTimeSeconds),
        retentionPeriod,
        deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: def.maxReceiveCount },
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
      });
      for (const sub of def.subscriptions) {
        const topic = this.topics.get(sub.topic);
        if (!topic) throw new Error(`queue ${name} subscribes to unknown topic ${sub.topic}`);
        // Also lets this topic (and only it) send to the queue, and subscribes
        // only once the queue policy is in place.
        topic.addSubscription(
          new subscriptions.SqsSubscription(queue, {
            rawMessageDelivery: true,
            // The same policy as the emulator's: the types, and the lane for a queue of a lane.
            filterPolicy: Object.fromEntries(
              Object.entries(filterPolicy(def, sub)).map(([key, conditions]) => [
                key,
                new sns.SubscriptionFilter(conditions),
              ]),
            ),
          }),
        );
      }
      const deadLetterAlarm = this.#deadLetterAlarm(name, prefix + dlqName(name), deadLetterQueue);
      this.inboxes.set(name, { queue, deadLetterQueue, deadLetterAlarm });
      output(this, `${constructId(name)}QueueUrl`, queue.queueUrl, `URL of ${prefix}${name}`);
    }

    for (const name of Object.keys(topology.buckets ?? {})) {
      // Bucket names are global: AWS picks this one, services get it as <NAME>_BUCKET.
      const bucket = new s3.Bucket(this, constructId(name, 'Bucket'), {
        encryption: s3.BucketEncryption.S3_MANAGED,
        enforceSSL: true,
        blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
        objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
        removalPolicy: RemovalPolicy.RETAIN,
      });
      this.buckets.set(name, bucket);
      output(this, `${constructId(name)}BucketName`, bucket.bucketName, `The ${name} bucket`);
    }
  }

  /**
   * Only a topic's producer publishes to it: a deny for every other principal,
   * whatever an identity policy grants it (events are not credentials:
   * docs/security.md, API10). Topics without a deployed producer are left as they are.
   */
  onlyProducersPublish(producerRole: (topic: TopicName) => iam.IRole | undefined): void {
    for (const [name, topic] of this.topics) {
      const role = producerRole(name);
      if (!role) continue;
      topic.addToResourcePolicy(
        new iam.PolicyStatement({
          sid: 'OnlyTheProducerPublishes',
          effect: iam.Effect.DENY,
          principals: [new iam.AnyPrincipal()],
          actions: ['sns:Publish'],
          resources: [topic.topicArn],
          conditions: { ArnNotEquals: { 'aws:PrincipalArn': role.roleArn } },
        }),
      );
    }
  }

  /**
   * CloudWatch cannot use SNS's AWS-managed key, so the alert topic has a key
   * of its own whose policy lets CloudWatch encrypt for it.
   */
  #alertTopic(prefix: string, email: string | undefined): sns.Topic {
    const key = new kms.Key(this, 'AlertKey', {
      description: 'Encrypts the Hireflow alert topic (CloudWatch alarms publish to it)',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    key.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
    );
    const topic = new sns.Topic(this, 'AlertTopic', {
      topicName: `${prefix}hireflow-alerts`,
      masterKey: key,
      enforceSSL: true,
    });
    // Its own policy replaces SNS's default one, which is what lets CloudWatch publish.
    topic.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
    );
    if (email) topic.addSubscription(new subscriptions.EmailSubscription(email));
    output(this, 'AlertTopicArn', topic.topicArn, 'Alarms notify this topic');
    return topic;
  }

  /** Fires on one visible message: any dead letter is a bug report. */
  #deadLetterAlarm(queueName: string, dlqFullName: string, dlq: sqs.Queue): cloudwatch.Alarm {
    const alarm = new cloudwatch.Alarm(this, constructId(queueName, 'DeadLetterAlarm'), {
      alarmName: `${dlqFullName}-not-empty`,
      alarmDescription: `${dlqFullName} holds messages: every dead letter is a bug report. List and redrive them with pnpm dlq.`,
      metric: dlq.metricApproximateNumberOfMessagesVisible({ period: ALARM_PERIOD, statistic: 'Maximum' }),
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      datapointsToAlarm: 1,
      // An idle, empty queue may report nothing at all.
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(new actions.SnsAction(this.alertTopic));
    alarm.addOkAction(new actions.SnsAction(this.alertTopic));
    return alarm;
  }
}

/** An output under a plain name (`JobsInboxQueueUrl`), not one suffixed with a hash of its path. */
function output(scope: Construct, id: string, value: string, description: string): void {
  new CfnOutput(scope, id, { value, description }).overrideLogicalId(id);
}
