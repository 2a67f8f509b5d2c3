// A subscriber service of this repository (`pnpm new:subscriber`, one line
// of libs/contracts/src/subscribers.registry.ts) runs on ECS like the four:
// its own task definition and Fargate service (worker role), its inbox,
// its database, and a task role allowed its own inbox and DLQ only.
import {
  type ConsumerName,
  registeredSubscribers,
  type SubscriberDefinition,
  subscriberQueue,
  type Topology,
  topology,
} from '@hireflow/contracts';
import { describe, expect, it } from 'vitest';
import { accessViolations, idOf, roleStatements } from './access.ts';
import { synthesize } from './synth.ts';
import { referencedIds, refOf, resource, resourcesOfType, type TemplateJson } from './template.ts';

// The registry as `pnpm new:subscriber analytics --events job.posted.v1,candidate.registered.v1` leaves it,
// and the topology derived from it (topology.ts adds a registered subscriber's inbox).
const analytics: SubscriberDefinition = {
  name: 'analytics',
  events: ['job.posted.v1', 'candidate.registered.v1'],
  port: 3101,
};
const withAnalytics = {
  ...topology,
  queues: {
    ...topology.queues,
    'analytics-inbox': subscriberQueue(analytics, { visibilityTimeoutSeconds: 30, maxReceiveCount: 10 }),
  },
} as Topology;
const { stack, template } = synthesize({}, { topology: withAnalytics, subscribers: [analytics] });
const json = template.toJSON() as TemplateJson;

type Container = {
  Name: string;
  Environment: { Name: string; Value: unknown }[];
  Secrets: { Name: string; ValueFrom: unknown }[];
};
const containersOf = (taskId: string) =>
  resource(json, taskId).Properties.ContainerDefinitions as Container[];
const envOf = (container: Container) =>
  Object.fromEntries(container.Environment.map((e) => [e.Name, e.Value]));

describe('a subscriber service of the registry on ECS', () => {
  const deployment = stack.subscriberDeployments.get('analytics')!;
  const worker = deployment.roles.get('worker')!;
  const taskId = idOf(stack, worker.taskDefinition);

  it('gets a Fargate service of its own running its worker role, with its ports and its database', () => {
    expect(deployment).toBeDefined();
    expect([...deployment.roles.keys()]).toEqual(['worker']);
    const [, service] = resourcesOfType(json, 'AWS::ECS::Service').find(
      ([id]) => id === idOf(stack, worker),
    )!;
    expect(refOf(service.Properties.TaskDefinition)).toBe(taskId);
    const app = containersOf(taskId).find((c) => c.Name === 'app')!;
    expect(envOf(app)).toMatchObject({
      SERVICE: 'analytics',
      ROLE: 'worker',
      PORT: '3101',
      ADMIN_PORT: '4101',
      OTEL_SERVICE_NAME: 'analytics',
    });
    expect(app.Secrets.map((s) => s.Name).sort()).toEqual(['ADMIN_TOKEN', 'DATABASE_URL', 'REDIS_URL']);
    // Its own database on the instance, not a service's.
    const url = app.Secrets.find((s) => s.Name === 'DATABASE_URL')!.ValueFrom;
    expect(refOf(url)).toBe(idOf(stack, stack.dataStores.databaseUrls.get('analytics' as ConsumerName)!));
    expect(JSON.stringify(resource(json, refOf(url)).Properties.SecretString)).toContain(
      'hireflow_analytics',
    );
    expect(json.Outputs!.AnalyticsWorkerServiceName).toBeDefined();
    // No public route: the load balancer knows only the four's APIs.
    expect(JSON.stringify(resourcesOfType(json, 'AWS::ElasticLoadBalancingV2::TargetGroup'))).not.toContain(
      '3101',
    );
  });

  it('its task role may consume its own inbox and DLQ and nothing else (no topic: it publishes nothing)', () => {
    const queues = stack.messaging.inboxes.get('analytics-inbox')!;
    const owned = [
      { id: idOf(stack, queues.queue), kind: 'inbox' as const },
      { id: idOf(stack, queues.deadLetterQueue), kind: 'dlq' as const },
    ];
    const roleId = idOf(stack, deployment.taskRole);
    expect(accessViolations(json, [{ service: 'analytics', roleId, owned }])).toEqual([]);
    const touched = new Set(roleStatements(json, roleId).flatMap((s) => [...referencedIds(s.Resource)]));
    expect([...touched].sort()).toEqual(owned.map((o) => o.id).sort());
    // And no service's role reaches the subscriber's inbox.
    for (const [service, other] of stack.deployments) {
      const theirs = roleStatements(json, idOf(stack, other.taskRole)).flatMap((s) => [s.Resource].flat());
      expect(JSON.stringify(theirs), service).not.toContain(owned[0]!.id);
    }
  });

  it('follows the registry by default: one subscriber service per registered subscriber', () => {
    const plain = synthesize();
    expect([...plain.stack.subscriberDeployments.keys()]).toEqual(
      (registeredSubscribers as readonly SubscriberDefinition[]).map((s) => s.name),
    );
  });
});
