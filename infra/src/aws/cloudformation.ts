// Turns the topology (libs/contracts/src/topology.ts) into a CloudFormation stack: the
// AWS side of "one definition, used locally and on AWS". Names, attributes and
// filter policies match what provision.ts applies to the emulator, so a
// service configured for one finds the same topics and queues on the other.
import { dlqName, type QueueDefinition, type Topology } from '@hireflow/contracts';
import { snsDeliveryStatement, typeFilterPolicy } from './policies.ts';

export type CloudFormationValue = unknown;

export interface CloudFormationResource {
  Type: string;
  Properties: Record<string, CloudFormationValue>;
  DependsOn?: string[];
}

export interface CloudFormationTemplate {
  AWSTemplateFormatVersion: '2010-09-09';
  Description: string;
  Metadata: Record<string, CloudFormationValue>;
  Parameters: Record<string, Record<string, CloudFormationValue>>;
  Conditions: Record<string, CloudFormationValue>;
  Resources: Record<string, CloudFormationResource>;
  Outputs: Record<string, { Description: string; Value: CloudFormationValue }>;
}

export interface CloudFormationOptions {
  /** Prepended to every topic, queue and alarm name, as HIREFLOW_TOPOLOGY_PREFIX does for the provisioner. */
  prefix?: string;
  /** Default of the AlarmTopicArn parameter: the SNS topic DLQ alarms notify (deploy-time override). */
  alarmTopicArn?: string;
}

/** SQS and CloudWatch report DLQ depth per minute; one datapoint above zero is enough. */
const ALARM_PERIOD_SECONDS = 60;
const ALARM_TOPIC_ARN_PATTERN = '^(arn:aws[a-z-]*:sns:[a-z0-9-]+:[0-9]{12}:[A-Za-z0-9_-]{1,256})?$';

const ref = (id: string) => ({ Ref: id });
const getAtt = (id: string, attribute: string) => ({ 'Fn::GetAtt': [id, attribute] });

/**
 * A CloudFormation logical id from name parts: `jobs-inbox` + `Queue` gives
 * `JobsInboxQueue`. Logical ids allow only letters and digits.
 */
export function logicalId(...parts: string[]): string {
  return parts
    .flatMap((part) => part.split(/[^A-Za-z0-9]+/))
    .filter((word) => word.length > 0)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('');
}

export function generateCloudFormation(
  topology: Topology,
  options: CloudFormationOptions = {},
): CloudFormationTemplate {
  const prefix = options.prefix ?? '';
  const alarmTopicArn = options.alarmTopicArn ?? '';
  if (!new RegExp(ALARM_TOPIC_ARN_PATTERN).test(alarmTopicArn)) {
    throw new Error(`alarmTopicArn must be an SNS topic ARN, got "${alarmTopicArn}"`);
  }
  const stack = new Stack(prefix);
  for (const name of Object.keys(topology.topics)) stack.addTopic(name);
  for (const [name, def] of Object.entries(topology.queues)) stack.addInbox(topology, name, def);
  for (const [name, def] of Object.entries(topology.buckets ?? {})) stack.addBucket(name, def.owner);

  return {
    AWSTemplateFormatVersion: '2010-09-09',
    Description:
      'Hireflow messaging topology: SNS topics, SQS inboxes with dead-letter queues, subscriptions, DLQ alarms and S3 buckets. ' +
      'Generated from libs/contracts/src/topology.ts by infra/src/aws/cli.ts: do not edit by hand.',
    Metadata: { Hireflow: { generator: 'infra/src/aws/cli.ts', prefix } },
    Parameters: {
      AlarmTopicArn: {
        Type: 'String',
        Default: alarmTopicArn,
        AllowedPattern: ALARM_TOPIC_ARN_PATTERN,
        Description: 'SNS topic that the dead-letter alarms notify; empty for alarms without actions.',
      },
    },
    Conditions: { HasAlarmTopic: { 'Fn::Not': [{ 'Fn::Equals': [ref('AlarmTopicArn'), ''] }] } },
    Resources: stack.resources,
    Outputs: stack.outputs,
  };
}

/** Resources and outputs under construction; refuses two names that map to one logical id (`a-b`, `a_b`). */
class Stack {
  readonly resources: Record<string, CloudFormationResource> = {};
  readonly outputs: CloudFormationTemplate['Outputs'] = {};
  readonly #prefix: string;
  readonly #topicIds = new Map<string, string>();

  constructor(prefix: string) {
    this.#prefix = prefix;
  }

  addTopic(name: string): void {
    const id = this.#add(logicalId(name, 'Topic'), 'AWS::SNS::Topic', { TopicName: this.#prefix + name });
    this.#topicIds.set(name, id);
    this.outputs[`${id}Arn`] = { Description: `ARN of the ${this.#prefix}${name} topic`, Value: ref(id) };
  }

  /**
   * A private bucket of one service (media's originals and variants): the
   * service reads and serves its objects itself, so S3 never serves them to
   * the public. Its name is the prefix and the topology's name, as the
   * provisioner makes it; bucket names are global on AWS, so the prefix
   * must make it unique (docs/deploy.md).
   */
  addBucket(name: string, owner: string): void {
    const id = this.#add(logicalId(name, 'Bucket'), 'AWS::S3::Bucket', {
      BucketName: this.#prefix + name,
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      Tags: [{ Key: 'hireflow:owner', Value: owner }],
    });
    this.outputs[`${id}Name`] = { Description: `Name of the ${this.#prefix}${name} bucket`, Value: ref(id) };
  }

  /** The queue, its DLQ, the policy letting its topics in, its subscriptions and the DLQ alarm. */
  addInbox(topology: Topology, name: string, def: QueueDefinition): void {
    const retention = topology.messageRetentionSeconds;
    const dlqFullName = this.#prefix + dlqName(name);
    const dlqId = this.#add(logicalId(name, 'DeadLetterQueue'), 'AWS::SQS::Queue', {
      QueueName: dlqFullName,
      MessageRetentionPeriod: retention,
      SqsManagedSseEnabled: true,
    });
    // The visibility timeout is the starting value: consumers resize it from
    // their measured p99, and a stack update only resets it when this changes.
    const queueId = this.#add(logicalId(name, 'Queue'), 'AWS::SQS::Queue', {
      QueueName: this.#prefix + name,
      VisibilityTimeout: def.visibilityTimeoutSeconds,
      MessageRetentionPeriod: retention,
      ReceiveMessageWaitTimeSeconds: topology.receiveWaitTimeSeconds,
      RedrivePolicy: { deadLetterTargetArn: getAtt(dlqId, 'Arn'), maxReceiveCount: def.maxReceiveCount },
      SqsManagedSseEnabled: true,
    });
    this.outputs[`${queueId}Url`] = {
      Description: `URL of the ${this.#prefix}${name} queue`,
      Value: ref(queueId),
    };
    this.outputs[`${dlqId}Url`] = { Description: `URL of the ${dlqFullName} queue`, Value: ref(dlqId) };

    const sourceTopicIds = [...new Set(def.subscriptions.map((sub) => this.#topicId(sub.topic, name)))];
    const policyId = this.#add(logicalId(name, 'QueuePolicy'), 'AWS::SQS::QueuePolicy', {
      Queues: [ref(queueId)],
      PolicyDocument: {
        Version: '2012-10-17',
        Statement: [snsDeliveryStatement(getAtt(queueId, 'Arn'), sourceTopicIds.map(ref))],
      },
    });
    for (const sub of def.subscriptions) {
      const properties = {
        TopicArn: ref(this.#topicId(sub.topic, name)),
        Protocol: 'sqs',
        Endpoint: getAtt(queueId, 'Arn'),
        RawMessageDelivery: true,
        FilterPolicyScope: 'MessageAttributes',
        FilterPolicy: typeFilterPolicy(sub.types),
      };
      // SNS drops what it cannot deliver: subscribe once the queue lets it in.
      this.#add(logicalId(name, 'From', sub.topic, 'Subscription'), 'AWS::SNS::Subscription', properties, [
        policyId,
      ]);
    }
    this.#add(
      logicalId(name, 'DeadLetterAlarm'),
      'AWS::CloudWatch::Alarm',
      deadLetterAlarm(dlqFullName, dlqId),
    );
  }

  #topicId(topic: string, queue: string): string {
    const id = this.#topicIds.get(topic);
    if (!id) throw new Error(`queue ${queue} subscribes to unknown topic ${topic}`);
    return id;
  }

  #add(
    id: string,
    type: string,
    properties: Record<string, CloudFormationValue>,
    dependsOn?: string[],
  ): string {
    if (this.resources[id]) throw new Error(`two topology names map to the logical id ${id}`);
    this.resources[id] = {
      Type: type,
      Properties: properties,
      ...(dependsOn ? { DependsOn: dependsOn } : {}),
    };
    return id;
  }
}

/** Fires on one visible message: any dead letter is a bug report. */
function deadLetterAlarm(dlqFullName: string, dlqId: string): Record<string, CloudFormationValue> {
  const actions = { 'Fn::If': ['HasAlarmTopic', [ref('AlarmTopicArn')], ref('AWS::NoValue')] };
  return {
    AlarmName: `${dlqFullName}-not-empty`,
    AlarmDescription: `${dlqFullName} holds messages: every dead letter is a bug report. List and redrive them with pnpm dlq.`,
    Namespace: 'AWS/SQS',
    MetricName: 'ApproximateNumberOfMessagesVisible',
    Dimensions: [{ Name: 'QueueName', Value: getAtt(dlqId, 'QueueName') }],
    Statistic: 'Maximum',
    Period: ALARM_PERIOD_SECONDS,
    EvaluationPeriods: 1,
    DatapointsToAlarm: 1,
    Threshold: 0,
    ComparisonOperator: 'GreaterThanThreshold',
    // An idle, empty queue may report nothing at all.
    TreatMissingData: 'notBreaching',
    AlarmActions: actions,
    OKActions: actions,
  };
}
