// The stack is the capacity model's plan for its load profile: task sizes,
// worker bounds, the database and cache classes; and a profile whose pools
// would open more Postgres connections than the class allows does not build.
import {
  type SubscriberDefinition,
  subscriberInbox,
  subscriberQueue,
  type Topology,
  topology,
} from '@hireflow/contracts';
import {
  capacityProfiles,
  planCapacity,
  SUBSCRIBER_TASK,
  usableConnections,
} from '@hireflow/contracts/capacity';
import { describe, expect, it } from 'vitest';
import {
  buildApp,
  capacityFor,
  connectionProblems,
  deploymentPlanFor,
  workerScalingFor,
} from '../src/index.ts';
import { idOf } from './access.ts';
import { synthesize, TEST_IMAGE } from './synth.ts';
import { resourcesOfType, type TemplateJson } from './template.ts';

describe('the stack follows the capacity model', () => {
  it('x100: the matching worker sized for every vector, the database class for the pools', () => {
    const capacity = planCapacity(capacityProfiles.x100!);
    const { template } = synthesize({ capacityProfile: 'x100' });
    const json = template.toJSON() as TemplateJson;

    const matching = capacity.services.matching.worker!;
    const sizes = resourcesOfType(json, 'AWS::ECS::TaskDefinition').map(([, r]) => ({
      cpu: Number(r.Properties.Cpu),
      memory: Number(r.Properties.Memory),
    }));
    expect(sizes).toContainEqual({ cpu: matching.cpu, memory: matching.memoryMiB });

    const classes = (type: string, property: string) =>
      resourcesOfType(json, type).map(([, r]) => r.Properties[property]);
    expect(classes('AWS::RDS::DBInstance', 'DBInstanceClass')).toEqual([capacity.database.class.name]);
    expect(classes('AWS::ElastiCache::ReplicationGroup', 'CacheNodeType')).toEqual([
      capacity.cache.class.name,
    ]);

    const maxima = resourcesOfType(json, 'AWS::ApplicationAutoScaling::ScalableTarget').map(
      ([, r]) => r.Properties.MaxCapacity,
    );
    expect(maxima).toContain(capacity.services.media.worker!.maxTasks);
  });

  it("the default profile's pools fit the database with the reserve kept", () => {
    const capacity = planCapacity(capacityProfiles.small!);
    const plan = deploymentPlanFor(capacity);
    expect(connectionProblems(capacity, plan, workerScalingFor(capacity))).toEqual([]);
    expect(capacity.database.connectionsAtMax).toBeLessThanOrEqual(
      usableConnections(capacity.database.class),
    );
  });

  it('refuses a plan whose pools would exhaust the database', () => {
    const capacity = planCapacity(capacityProfiles.small!);
    const plan = deploymentPlanFor(capacity);
    const scaling = workerScalingFor(capacity);
    // Two more media workers at their maximum: 34 tasks × 11 = 374 > 364.
    const more = { ...scaling, media: { ...scaling.media, maxWorkers: scaling.media.maxWorkers + 2 } };
    expect(connectionProblems(capacity, plan, more)).toEqual([
      expect.stringMatching(/374 Postgres connections; db\.t4g\.medium allows 364/),
    ]);
    // The 10,000× profile is past the largest class: the stack says so instead of building.
    expect(() =>
      buildApp({ context: { ...cdkContext(), capacityProfile: 'x10000', imageUri: TEST_IMAGE } }),
    ).toThrow(/capacity profile x10000: .*RDS Proxy/);
  });

  it("counts each registry subscriber service's task and pool", () => {
    const subscribers: SubscriberDefinition[] = [
      { name: 'analytics', events: ['job.posted.v1'], port: 3101 },
      { name: 'crm', events: ['candidate.registered.v1'], port: 3102 },
    ];
    const four = capacityFor('small', []);
    const plan = deploymentPlanFor(four);
    const scaling = workerScalingFor(four);
    // The four's 32 tasks fill 352 of db.t4g.medium's 364; two subscriber tasks' pools (10 each) do not fit.
    const withSubscribers = { ...four, subscribers: capacityFor('small', subscribers).subscribers };
    expect(connectionProblems(withSubscribers, plan, scaling)).toEqual([
      expect.stringMatching(
        /^34 tasks \(2 of subscriber services\) at their maximum open up to 372 Postgres connections; db\.t4g\.medium allows 364/,
      ),
    ]);
    // The stack plans with the subscribers it runs: the next class, which holds them.
    const topologyWith = {
      ...topology,
      queues: {
        ...topology.queues,
        ...Object.fromEntries(
          subscribers.map((s) => [
            subscriberInbox(s.name),
            subscriberQueue(s, { visibilityTimeoutSeconds: 30, maxReceiveCount: 10 }),
          ]),
        ),
      },
    } as Topology;
    const { stack, template } = synthesize({}, { topology: topologyWith, subscribers });
    const json = template.toJSON() as TemplateJson;
    const capacity = capacityFor('small', subscribers);
    expect(capacity.database.class.name).toBe('db.t4g.large');
    expect(
      resourcesOfType(json, 'AWS::RDS::DBInstance').map(([, r]) => r.Properties.DBInstanceClass),
    ).toEqual(['db.t4g.large']);
    for (const { name } of subscribers) {
      const worker = stack.subscriberDeployments.get(name)!.roles.get('worker')!;
      const task = resourcesOfType(json, 'AWS::ECS::TaskDefinition').find(
        ([id]) => id === idOf(stack, worker.taskDefinition),
      )!;
      expect({ cpu: Number(task[1].Properties.Cpu), memory: Number(task[1].Properties.Memory) }).toEqual({
        cpu: SUBSCRIBER_TASK.cpu,
        memory: SUBSCRIBER_TASK.memoryMiB,
      });
    }
  });

  it('an unknown profile names the ones there are', () => {
    expect(() =>
      buildApp({ context: { ...cdkContext(), capacityProfile: 'huge', imageUri: TEST_IMAGE } }),
    ).toThrow(/capacityProfile.*small, x100, x10000/);
  });
});

function cdkContext(): Record<string, unknown> {
  return {
    certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/00000000-0000-0000-0000-000000000000',
    publicUrl: 'https://jobs.example.com',
  };
}
