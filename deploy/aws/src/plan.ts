// What runs on ECS: per service, its ports, which roles run as their own
// Fargate service, their sizes, and the public routes the load balancer
// sends to its API role (from the one base URL's routing table, which the
// local gateway of `pnpm start` uses too). Worker counts and scaling are
// not here: they come from the scaling policy shared with the local
// autoscaler (libs/contracts/src/scaling.ts).
import { adminPortFor, patternsOf, type ServiceName, servicePort } from '@hireflow/contracts';

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

export const deploymentPlan: Record<ServiceName, ServicePlan> = {
  jobs: {
    port: servicePort('jobs'),
    // Two API tasks, one per availability zone: the public entry point survives one.
    api: {
      cpu: 512,
      memoryMiB: 1024,
      routes: patternsOf('jobs'),
      minTasks: 2,
      maxTasks: 6,
      cpuTargetPercent: 60,
    },
    worker: { cpu: 512, memoryMiB: 1024 },
  },
  // No public route: the API role is omitted, the worker role serves health only.
  matching: { port: servicePort('matching'), worker: { cpu: 1024, memoryMiB: 2048 } },
  notifications: {
    port: servicePort('notifications'),
    // Only the one-click unsubscribe link is public.
    api: {
      cpu: 256,
      memoryMiB: 512,
      routes: patternsOf('notifications'),
      minTasks: 1,
      maxTasks: 2,
      cpuTargetPercent: 60,
    },
    worker: { cpu: 512, memoryMiB: 1024 },
  },
  media: {
    port: servicePort('media'),
    api: {
      cpu: 512,
      memoryMiB: 1024,
      routes: patternsOf('media'),
      minTasks: 1,
      maxTasks: 4,
      cpuTargetPercent: 60,
    },
    // sharp decodes and resizes in memory.
    worker: { cpu: 1024, memoryMiB: 2048 },
  },
};

/** The collector sidecar's share of each task. */
export const COLLECTOR_MEMORY_MIB = 128;

/** Longer than the services' SHUTDOWN_TIMEOUT_MS (25 s): in-flight work drains before SIGKILL. */
export const STOP_TIMEOUT_SECONDS = 30;
