// Hireflow on AWS, from the same topology definition the emulator gets:
// messaging (SNS, SQS, S3, alarms), a VPC, Postgres and Redis, and each
// service's roles on ECS Fargate behind one load balancer, scaled by the
// policy shared with the local autoscaler.
import {
  type ConsumerName,
  registeredSubscribers,
  type ServiceName,
  type SubscriberDefinition,
  serviceChannels,
  type Topology,
  topology,
  type WorkerScalingPolicy,
} from '@hireflow/contracts';
import { POOL_MAX } from '@hireflow/contracts/capacity';
import { CfnOutput, Duration, Fn, Stack, type StackProps } from 'aws-cdk-lib';
import * as ecr from 'aws-cdk-lib/aws-ecr';
import * as ecrAssets from 'aws-cdk-lib/aws-ecr-assets';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import type { Construct } from 'constructs';
import { REPO_ROOT, type StackSettings } from './config.ts';
import { DataStores } from './data-stores.ts';
import { ExternalSubscribers, withExternalSubscribers } from './external-subscribers.ts';
import { PublicEntry } from './load-balancer.ts';
import { constructId, Messaging } from './messaging.ts';
import { acknowledgeNagFindings } from './nag.ts';
import { Network, VPC_CIDR } from './network.ts';
import {
  capacityFor,
  connectionProblems,
  deploymentPlanFor,
  type ServicePlan,
  workerScalingFor,
} from './plan.ts';
import { AppSecrets } from './secrets.ts';
import { ServiceDeployment, stackEnvironment } from './service-deployment.ts';
import { WorkerScaling } from './worker-scaling.ts';

export interface HireflowStackProps extends StackProps {
  settings: StackSettings;
  topology?: Topology;
  plan?: Record<ServiceName, ServicePlan>;
  workerScaling?: Record<ServiceName, WorkerScalingPolicy>;
  /**
   * The subscriber services of this repository (default: the registry,
   * libs/contracts/src/subscribers.registry.ts), each an ECS service of its
   * own; the topology must have their inboxes (the registry's are in it).
   */
  subscribers?: readonly SubscriberDefinition[];
}

export class HireflowStack extends Stack {
  readonly messaging: Messaging;
  readonly externalSubscribers: ExternalSubscribers;
  readonly network: Network;
  readonly dataStores: DataStores;
  readonly appSecrets: AppSecrets;
  readonly cluster: ecs.Cluster;
  readonly entry: PublicEntry;
  readonly deployments = new Map<ServiceName, ServiceDeployment>();
  /** The subscriber services of the registry, by name. */
  readonly subscriberDeployments = new Map<string, ServiceDeployment>();
  readonly workerScaling = new Map<ServiceName, WorkerScaling>();

  constructor(scope: Construct, id: string, props: HireflowStackProps) {
    super(scope, id, {
      description:
        'Hireflow: topology from libs/contracts/src/topology.ts, services on ECS Fargate (deploy/aws)',
      ...props,
    });
    const { settings } = props;
    const t = props.topology ?? topology;
    // Sizes, counts and the data stores' classes from the capacity model (docs/capacity.md).
    // The subscriber services' tasks and pools are in the plan: they share the database.
    const subscribers = props.subscribers ?? registeredSubscribers;
    const capacity = capacityFor(settings.capacityProfile, subscribers);
    const plan = props.plan ?? deploymentPlanFor(capacity);
    const scaling = props.workerScaling ?? workerScalingFor(capacity);
    const problems = connectionProblems(capacity, plan, scaling);
    if (problems.length > 0)
      throw new Error(`capacity profile ${settings.capacityProfile}: ${problems.join('; ')}`);
    const services = Object.keys(plan) as ServiceName[];

    this.messaging = new Messaging(this, 'Messaging', {
      topology: withExternalSubscribers(t, settings.subscribers),
      prefix: settings.prefix,
      alertEmail: settings.alertEmail,
    });
    this.externalSubscribers = new ExternalSubscribers(this, 'ExternalSubscribers', {
      subscribers: settings.subscribers,
      messaging: this.messaging,
      prefix: settings.prefix,
    });
    this.network = new Network(this, 'Network');
    const { vpc } = this.network;
    this.dataStores = new DataStores(this, 'DataStores', {
      vpc,
      services: [...services, ...subscribers.map((s) => s.name as ConsumerName)],
      multiAz: settings.multiAz,
      databaseClass: capacity.database.class.name,
      cacheNodeType: capacity.cache.class.name,
    });
    this.appSecrets = new AppSecrets(this, 'Secrets');
    this.cluster = new ecs.Cluster(this, 'Cluster', {
      vpc,
      // RunningTaskCount, the divisor of backlog per task, is a Container Insights metric.
      containerInsightsV2: ecs.ContainerInsights.ENABLED,
    });
    this.entry = new PublicEntry(this, 'PublicEntry', { vpc, certificateArn: settings.certificateArn });
    const publicUrl = settings.publicUrl;
    const image = this.#image(settings);

    for (const service of services) {
      const servicePlan = plan[service];
      const deployment = new ServiceDeployment(this, `${capitalize(service)}Service`, {
        service,
        plan: servicePlan,
        cluster: this.cluster,
        image,
        collectorImage: settings.collectorImage,
        tracing: { sampleRatio: settings.traceSampleRatio, endpoint: settings.traceEndpoint },
        channels: this.#channels(service, t),
        environment: {
          ...stackEnvironment(this, settings.prefix),
          // The pool the connection check above counts with.
          DATABASE_POOL_MAX: String(POOL_MAX),
          ...this.#bucketEnvironment(service, t),
          // media makes variant URLs under it, jobs checks them.
          ...(service === 'media' || service === 'jobs' ? { MEDIA_PUBLIC_URL: publicUrl } : {}),
          // Behind the load balancer every client would share its address: believe its X-Forwarded-For only.
          ...(servicePlan.api ? { TRUST_PROXY: VPC_CIDR } : {}),
          // The one-click unsubscribe links of emails point at the public entry, which routes them to notifications;
          // the per-tenant email quota is the model's for this profile (twice the largest tenant's day), not the default.
          ...(service === 'notifications'
            ? {
                UNSUBSCRIBE_BASE_URL: publicUrl,
                TENANT_DAILY_EMAIL_QUOTA: String(capacity.tenantDailyEmailQuota),
              }
            : {}),
        },
        secrets: this.#secrets(service),
        adminPeer: this.network.internalPeer,
      });
      this.dataStores.allowFrom(deployment.securityGroup, service);
      this.deployments.set(service, deployment);

      for (const [role, fargate] of deployment.roles) {
        new CfnOutput(this, `${capitalize(service)}${capitalize(role)}ServiceName`, {
          value: fargate.serviceName,
        });
      }
      const api = deployment.roles.get('api');
      if (api && servicePlan.api) {
        this.entry.route(`${capitalize(service)}Api`, api, servicePlan.port, servicePlan.api.routes);
        api
          .autoScaleTaskCount({
            minCapacity: servicePlan.api.minTasks,
            maxCapacity: servicePlan.api.maxTasks,
          })
          .scaleOnCpuUtilization('Cpu', {
            targetUtilizationPercent: servicePlan.api.cpuTargetPercent,
            scaleOutCooldown: Duration.seconds(60),
            scaleInCooldown: Duration.seconds(300),
          });
      }
      const { inbox, bulkInbox } = this.#channels(service, t);
      if (inbox) {
        this.workerScaling.set(
          service,
          new WorkerScaling(this, `${capitalize(service)}WorkerScaling`, {
            policy: scaling[service],
            cluster: this.cluster,
            service: deployment.roles.get('worker')!,
            // Both lanes' queues: the backlog is the whole backlog (docs/fairness.md).
            queues: [inbox.queue, ...(bulkInbox ? [bulkInbox.queue] : [])],
          }),
        );
      }
    }

    // The subscriber services of this repository: one worker task each, its
    // task role allowed its own inbox and DLQ only (it publishes nothing),
    // its own database and Redis prefix like the four (docs/deploy.md).
    // A subscriber service's one task (worker role: its inbox; health and admin
    // ports like the four) is the capacity model's SUBSCRIBER_TASK: one task,
    // not scaled (no scaling policy of its own, as with `pnpm start`).
    for (const subscriber of subscribers) {
      const name = subscriber.name as ConsumerName;
      const size = capacity.subscribers.find((s) => s.name === subscriber.name)!;
      const channels = this.#channels(name, t);
      if (!channels.inbox) throw new Error(`the topology has no inbox for the subscriber ${name}`);
      const deployment = new ServiceDeployment(this, `${constructId(name)}Subscriber`, {
        service: name,
        plan: { port: subscriber.port, worker: { cpu: size.cpu, memoryMiB: size.memoryMiB } },
        cluster: this.cluster,
        image,
        collectorImage: settings.collectorImage,
        tracing: { sampleRatio: settings.traceSampleRatio, endpoint: settings.traceEndpoint },
        channels,
        environment: { ...stackEnvironment(this, settings.prefix), DATABASE_POOL_MAX: String(POOL_MAX) },
        secrets: this.#secrets(name),
        adminPeer: this.network.internalPeer,
      });
      this.dataStores.allowFrom(deployment.securityGroup, name);
      this.subscriberDeployments.set(name, deployment);
      new CfnOutput(this, `${constructId(name)}WorkerServiceName`, {
        value: deployment.roles.get('worker')!.serviceName,
      });
    }

    this.messaging.onlyProducersPublish((topic) => {
      const producer = t.topics[topic]?.producer;
      return producer ? this.deployments.get(producer)?.taskRole : undefined;
    });

    new CfnOutput(this, 'PublicUrl', { value: publicUrl, description: 'The public API' });
    new CfnOutput(this, 'ClusterName', { value: this.cluster.clusterName });
    new CfnOutput(this, 'SmtpUrlSecret', {
      value: this.appSecrets.smtpUrl.secretName,
      description: "Put the mail provider's SMTP URL here, then redeploy notifications",
    });
    new CfnOutput(this, 'AdminTokenSecret', { value: this.appSecrets.adminToken.secretArn });
    new CfnOutput(this, 'EgressIps', {
      value: Fn.join(',', this.network.egressIps),
      description:
        'Where webhook deliveries (and every other connection out) come from: for consumers to allow-list',
    });
    // For one-off commands (`pnpm cli api-key create`) as an ECS task: docs/deploy.md.
    const jobs = this.deployments.get('jobs');
    const jobsWorker = jobs?.roles.get('worker');
    if (jobs && jobsWorker) {
      new CfnOutput(this, 'JobsTaskDefinition', { value: jobsWorker.taskDefinition.family });
      new CfnOutput(this, 'JobsSecurityGroup', { value: jobs.securityGroup.securityGroupId });
      new CfnOutput(this, 'PrivateSubnets', {
        value: vpc.privateSubnets.map((subnet) => subnet.subnetId).join(','),
      });
    }
    // cdk-nag AwsSolutions: what the stack does differently, with the reasons (src/nag.ts).
    acknowledgeNagFindings(this, settings);
  }

  /**
   * A pushed image when `imageUri` is set (CI builds once and promotes it);
   * otherwise the repository's Dockerfile, which `cdk deploy` builds and
   * pushes to the bootstrap repository. Synth only fingerprints the context.
   */
  #image(settings: StackSettings): ecs.ContainerImage {
    const uri = settings.imageUri;
    if (!uri) {
      return ecs.ContainerImage.fromDockerImageAsset(
        new ecrAssets.DockerImageAsset(this, 'Image', {
          directory: REPO_ROOT,
          file: 'Dockerfile',
          // The services' image; the Dockerfile's `emulator` target is for docker-compose only.
          target: 'runtime',
          platform: ecrAssets.Platform.LINUX_AMD64,
        }),
      );
    }
    // An ECR image gets pull permissions on the execution role; others are public.
    const ecrImage = /^(\d{12})\.dkr\.ecr\.([a-z0-9-]+)\.amazonaws\.com\/([^:@]+)[:@](.+)$/.exec(uri);
    if (!ecrImage) return ecs.ContainerImage.fromRegistry(uri);
    const [, account, region, repository, tagOrDigest] = ecrImage;
    const repo = ecr.Repository.fromRepositoryAttributes(this, 'ImageRepository', {
      repositoryArn: `arn:${this.partition}:ecr:${region}:${account}:repository/${repository}`,
      repositoryName: repository!,
    });
    return ecs.ContainerImage.fromEcrRepository(repo, tagOrDigest);
  }

  #channels(service: ConsumerName, t: Topology) {
    const logical = serviceChannels(service, t);
    return {
      topic: logical.topic ? this.messaging.topics.get(logical.topic) : undefined,
      inbox: logical.inbox ? this.messaging.inboxes.get(logical.inbox) : undefined,
      bulkInbox: logical.bulkInbox ? this.messaging.inboxes.get(logical.bulkInbox) : undefined,
      bucket: logical.bucket ? this.messaging.buckets.get(logical.bucket) : undefined,
    };
  }

  /** Bucket names are global, so AWS picks them: the owner gets `<NAME>_BUCKET` (MEDIA_BUCKET). */
  #bucketEnvironment(service: ServiceName, t: Topology): Record<string, string> {
    const env: Record<string, string> = {};
    for (const [name, def] of Object.entries(t.buckets ?? {})) {
      const bucket = this.messaging.buckets.get(name);
      if (def.owner === service && bucket) env[`${name.toUpperCase()}_BUCKET`] = bucket.bucketName;
    }
    return env;
  }

  #secrets(service: ConsumerName): Record<string, ecs.Secret> {
    const { fromSecretsManager } = ecs.Secret;
    const secrets: Record<string, ecs.Secret> = {
      DATABASE_URL: fromSecretsManager(this.dataStores.databaseUrls.get(service)!),
      REDIS_URL: fromSecretsManager(this.dataStores.redisUrl),
      ADMIN_TOKEN: fromSecretsManager(this.appSecrets.adminToken),
    };
    if (service === 'jobs' || service === 'media') {
      secrets.APIKEY_EVENT_KEY = fromSecretsManager(this.appSecrets.apiKeyEventKey);
    }
    if (service === 'notifications') {
      secrets.SMTP_URL = fromSecretsManager(this.appSecrets.smtpUrl);
      secrets.UNSUBSCRIBE_SIGNING_KEY = fromSecretsManager(this.appSecrets.unsubscribeSigningKey);
    }
    return secrets;
  }
}

const capitalize = (name: string) => name[0]!.toUpperCase() + name.slice(1);
