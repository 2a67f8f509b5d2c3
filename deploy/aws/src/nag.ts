// cdk-nag's AwsSolutions pack (test/nag.test.ts): what the stack does not do
// as the pack asks, acknowledged here where it is decided, each with the
// reason. Fixed instead: VPC flow logs (rejected traffic, src/network.ts).
// A new finding fails the test: fix it, or acknowledge it here with a reason.
import { type CfnElement, Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import type { HireflowStack } from './stack.ts';

const acknowledge = (scope: IConstruct, id: string, reason: string) =>
  Validations.of(scope).acknowledge({ id, reason });

export function acknowledgeNagFindings(stack: HireflowStack, settings: { multiAz: boolean }): void {
  const { database } = stack.dataStores;

  // Data stores.
  acknowledge(
    stack.dataStores,
    'AwsSolutions-RDS11',
    "Postgres on its default port: a port number hides nothing; the security group admits only the services' tasks.",
  );
  acknowledge(
    stack.dataStores,
    'AwsSolutions-AEC5',
    "Redis on its default port: a port number hides nothing; the security group admits only the services' tasks.",
  );
  if (!settings.multiAz) {
    acknowledge(
      stack.dataStores,
      'AwsSolutions-AEC4',
      'Redis without a replica by default for cost; `-c multiAz=true` adds one in the second zone with automatic failover (docs/deploy.md).',
    );
    acknowledge(
      database,
      'AwsSolutions-RDS3',
      'Single-AZ by default for cost (a standby doubles the price); `-c multiAz=true` adds it (docs/deploy.md). Backups are kept 7 days.',
    );
  }
  acknowledge(
    stack,
    'AwsSolutions-SMG4',
    'No automatic rotation: the services read these secrets (generated database and Redis credentials, the admin token, the unsubscribe key, the SMTP URL) at start only, and a rotation would need a rotation function per secret plus a redeploy to take effect; rotate by regenerating and redeploying (docs/deploy.md).',
  );

  // Compute.
  acknowledge(
    stack,
    'AwsSolutions-ECS2',
    'The task definitions carry only non-secret settings as environment variables (role, ports, region, topology prefix, OTLP endpoint); every secret comes from Secrets Manager (test/compute.test.ts checks which).',
  );
  for (const deployment of stack.deployments.values()) {
    acknowledge(
      deployment.securityGroup,
      'AwsSolutions-EC23',
      "Not open to the internet: the admin port admits the VPC's own CIDR (a token cdk-nag cannot read) and the service port only the load balancer's security group (test/access.test.ts).",
    );
    acknowledge(
      deployment,
      'AwsSolutions-IAM5[Resource::*]',
      'Calls that take no resource: sns:ListTopics (SNS has no lookup by name), the X-Ray calls of the collector, ecr:GetAuthorizationToken of the execution roles; every other statement names its own topic, queues and bucket (test/access.test.ts).',
    );
  }
  const media = stack.deployments.get('media');
  const bucket = stack.messaging.buckets.get('media');
  if (media && bucket) {
    const bucketId = stack.getLogicalId(bucket.node.defaultChild as CfnElement);
    acknowledge(
      media,
      `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/*]`,
      "media reads and writes the objects of its own bucket, whose keys are per upload: the bucket's objects are the narrowest resource.",
    );
    acknowledge(
      bucket,
      'AwsSolutions-S1',
      "Only media's task role writes the bucket (uploads and their variants, each recorded by media with its trace id); server access logs would need a second bucket and log every variant read.",
    );
  }

  // The public entry.
  acknowledge(
    stack.entry.loadBalancer,
    'AwsSolutions-EC23',
    'The public HTTPS entry: 443 (and 80, which only redirects) from anywhere is its purpose.',
  );
  acknowledge(
    stack.entry.loadBalancer,
    'AwsSolutions-ELB2',
    "No access logs: each request is logged by the service that answers it (pino, with its trace id), and ALB logs need an S3 bucket with the region's ELB account as writer; add them with loadBalancer.logAccessLogs() where an audit asks for them.",
  );
}
