// Subscribers outside this repository (`-c subscribers=analytics:job.posted.v1,…`,
// docs/subscribing.md): each gets its inbox and DLQ in the messaging topology
// (added by `withExternalSubscribers`) and a role of its own that may do
// with them exactly what a service's consumer does with its inbox, nothing else.
import {
  type ExternalSubscriber,
  externalSubscriberTopology,
  subscriberInbox,
  type Topology,
} from '@hireflow/contracts';
import { CfnOutput } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { constructId, type Messaging } from './messaging.ts';
import { serviceChannelStatements } from './permissions.ts';

/** The topology with each external subscriber's inbox added (the topics are the topology's own). */
export function withExternalSubscribers(
  topology: Topology,
  subscribers: readonly ExternalSubscriber[],
): Topology {
  const queues = { ...topology.queues };
  for (const subscriber of subscribers)
    Object.assign(queues, externalSubscriberTopology(subscriber, topology).queues);
  return { ...topology, queues };
}

export interface ExternalSubscribersProps {
  subscribers: readonly ExternalSubscriber[];
  messaging: Messaging;
  prefix: string;
}

export class ExternalSubscribers extends Construct {
  /** The role each subscriber's consumer assumes, by subscriber name. */
  readonly roles = new Map<string, iam.Role>();

  constructor(scope: Construct, id: string, props: ExternalSubscribersProps) {
    super(scope, id);
    for (const { name } of props.subscribers) {
      const inboxName = subscriberInbox(name);
      const inbox = props.messaging.inboxes.get(inboxName);
      if (!inbox)
        throw new Error(`the messaging topology has no ${inboxName}: add it with withExternalSubscribers`);
      // Assumable by the account's own principals (the subscriber's team is
      // given sts:AssumeRole on it by the account's admins, not by this stack).
      const role = new iam.Role(this, constructId(name, 'SubscriberRole'), {
        assumedBy: new iam.AccountRootPrincipal(),
        description: `External subscriber ${name}: consumes ${props.prefix}${inboxName} and its DLQ only`,
        inlinePolicies: {
          Inbox: new iam.PolicyDocument({ statements: serviceChannelStatements({ inbox }) }),
        },
      });
      this.roles.set(name, role);
      new CfnOutput(this, `${constructId(name)}SubscriberRoleArn`, {
        value: role.roleArn,
        description: `Role of the external subscriber ${name}`,
      }).overrideLogicalId(`${constructId(name)}SubscriberRoleArn`);
    }
  }
}
