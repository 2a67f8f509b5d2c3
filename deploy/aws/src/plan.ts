// What runs on ECS: per service, its ports, which roles run as their own
// Fargate service, their sizes, and the public routes the load balancer
// sends to its API role (from the one base URL's routing table, which the
// local gateway of `pnpm start` uses too). Sizes and task counts come from
// the capacity model for the stack's load profile (libs/contracts/src/capacity,
// `-c capacityProfile=…`); the scaling rules from the policy shared with the
// local autoscaler (libs/contracts/src/scaling.ts), its worker bounds from
// the same model.
import {
  adminPortFor,
  type PublicService,
  patternsOf,
  type ServiceName,
  type SubscriberDefinition,
  servicePort,
  type WorkerScalingPolicy,
  workerScaling,
} from '@hireflow/contracts';
import {
  type CapacityPlan,
  CONNECTIONS_PER_PROCESS,
  capacityProfiles,
  DEFAULT_CAPACITY_PROFILE,
  planCapacity,
  usableConnections,
} from '@hireflow/contracts/capacity';

export interface TaskSize {
  /** Fargate CPU units (1024 = 1 vCPU) for the whole task, collector sidecar included. */
  cpu: number;
  memoryMiB: number;
}

export interface ApiPlan extends TaskSize {
  /** ALB path patterns routed to this API (at most 5 per listener rule). */
  routes: string[];
  minTasks: number;
  maxTasks: number;
  /** Average CPU the API fleet is kept near. */
  cpuTargetPercent: number;
}

export interface ServicePlan {
  /** The service's port (libs/contracts); the admin port is PORT + 1000. */
  port: number;
  /** Absent: the service has no public route and runs as worker only. */
  api?: ApiPlan;
  worker: TaskSize;
}

export const adminPortOf = (plan: ServicePlan): number => adminPortFor(plan.port);

/** Public API roles: the CPU target their fleet is kept near. */
const CPU_TARGET_PERCENT = 60;

/** The services' plan for a capacity plan: sizes and task counts from the model. */
export function deploymentPlanFor(capacity: CapacityPlan): Record<ServiceName, ServicePlan> {
  const plan = {} as Record<ServiceName, ServicePlan>;
  for (const [service, roles] of Object.entries(capacity.services) as [
    ServiceName,
    CapacityPlan['services'][ServiceName],
  ][]) {
    const worker = roles.worker!;
    plan[service] = {
      port: servicePort(service),
      // No public route (matching): the API role is omitted, the worker role serves health only.
      ...(roles.api
        ? {
            api: {
              cpu: roles.api.cpu,
              memoryMiB: roles.api.memoryMiB,
              routes: patternsOf(service as PublicService),
              minTasks: roles.api.minTasks,
              maxTasks: roles.api.maxTasks,
              cpuTargetPercent: CPU_TARGET_PERCENT,
            },
          }
        : {}),
      worker: { cpu: worker.cpu, memoryMiB: worker.memoryMiB },
    };
  }
  return plan;
}

/** The shared scaling policy with the worker bounds of the capacity plan. */
export function workerScalingFor(capacity: CapacityPlan): Record<ServiceName, WorkerScalingPolicy> {
  const scaling = { ...workerScaling };
  for (const service of Object.keys(scaling) as ServiceName[]) {
    const worker = capacity.services[service].worker!;
    scaling[service] = { ...scaling[service], minWorkers: worker.minTasks, maxWorkers: worker.maxTasks };
  }
  return scaling;
}

/**
 * What every pool at the maximum task counts may open against what the
 * database class allows (less a reserve): a message per excess, none when
 * it fits. The stack refuses to build a plan that does not (docs/capacity.md).
 */
export function connectionProblems(
  capacity: CapacityPlan,
  plan: Record<ServiceName, ServicePlan>,
  scaling: Record<ServiceName, WorkerScalingPolicy>,
): string[] {
  let processes = 0;
  for (const service of Object.keys(plan) as ServiceName[]) {
    processes += (plan[service].api?.maxTasks ?? 0) + scaling[service].maxWorkers;
  }
  // Each subscriber service of the registry: its one task's pool (no outbox LISTEN: it publishes nothing).
  const subscriberTasks = capacity.subscribers.reduce((sum, s) => sum + s.tasks, 0);
  const needed =
    processes * CONNECTIONS_PER_PROCESS + capacity.subscribers.reduce((sum, s) => sum + s.connections, 0);
  const db = capacity.database.class;
  const usable = usableConnections(db);
  const tasks =
    subscriberTasks > 0
      ? `${processes + subscriberTasks} tasks (${subscriberTasks} of subscriber services)`
      : `${processes} tasks`;
  return needed > usable
    ? [
        `${tasks} at their maximum open up to ${needed} Postgres connections; ${db.name} allows ${usable} (90 % of its max_connections): ` +
          'a larger class, fewer tasks, or RDS Proxy in front of Postgres (docs/capacity.md)',
      ]
    : [];
}

/**
 * The named profile's plan for a stack that runs these subscriber services
 * beside the four (default: the registry's): their tasks and pools are in it.
 */
export const capacityFor = (
  profile: string = DEFAULT_CAPACITY_PROFILE,
  subscribers?: readonly Pick<SubscriberDefinition, 'name'>[],
): CapacityPlan => {
  const load = capacityProfiles[profile];
  if (!load)
    throw new Error(`no capacity profile ${profile}; have ${Object.keys(capacityProfiles).join(', ')}`);
  return planCapacity(load, subscribers ? { subscribers } : {});
};

/** The default profile's plan. */
export const deploymentPlan: Record<ServiceName, ServicePlan> = deploymentPlanFor(capacityFor());

/** The collector sidecar's share of each task. */
export const COLLECTOR_MEMORY_MIB = 128;

/** Longer than the services' SHUTDOWN_TIMEOUT_MS (25 s): in-flight work drains before SIGKILL. */
export const STOP_TIMEOUT_SECONDS = 30;
