// The capacity model: a load profile in, what it takes out — task counts and
// sizes per service and role, the database and cache classes, the
// connections every pool may open against what the database allows, SNS/SQS
// requests, the monthly cost, and which limit binds first. Pure arithmetic on
// the measured ceilings (measured.ts) and AWS's sizes and prices (prices.ts);
// the AWS app builds its stack from `planCapacity(profiles[name])`, so the
// stack and the model cannot drift (docs/capacity.md).
import { workerScaling } from '../scaling.ts';
import type { ServiceName } from '../services.ts';
import { registeredSubscribers } from '../subscribers.registry.ts';
import type { SubscriberDefinition } from '../subscribers.ts';
import { measured, searchMs, TARGET_UTILISATION } from './measured.ts';
import {
  type CacheClass,
  cacheClasses,
  type DatabaseClass,
  databaseClasses,
  fargate,
  fixedMonthly,
  HOURS_PER_MONTH,
  maxConnections,
  perMillion,
  STORAGE_GB,
  storagePerGbMonth,
} from './prices.ts';
import {
  DEFAULT_REGION,
  SQS_IN_FLIGHT_PER_CONSUMER,
  snsPublishQuota,
  sqsStandard,
  TENANT_DAILY_EMAIL_QUOTA,
} from './quotas.ts';

const DAY = 86_400;

export interface LoadProfile {
  name: string;
  description: string;
  tenants: number;
  /** Candidates of an average tenant. */
  candidatesPerTenant: number;
  /** Candidates of the largest tenant: a posting's first computation searches them all. */
  largestTenantCandidates: number;
  openPostingsPerTenant: number;
  postingsPerDay: number;
  /** Candidate registrations a day (each: a computation, a welcome email). */
  registrationsPerDay: number;
  uploadsPerDay: number;
  /** Public API requests a day (reads and writes). */
  apiRequestsPerDay: number;
  /**
   * Status streams (SSE, GET /v1/jobs/{id}/events) open at once at the peak,
   * across the jobs API tasks: each holds memory in its task while open.
   */
  peakOpenStreams: number;
  /** Match emails a posting sends on average (at most MATCH_LIMIT). */
  emailsPerPosting: number;
  /** Postings a new candidate matches on average (a match.found each). */
  matchesPerCandidate: number;
  /** The busiest hour's rate ÷ the day's average. */
  peakFactor: number;
  /** Minutes of peak BullMQ work Redis must hold while a provider is away. */
  backlogMinutes: number;
}

export type Role = 'api' | 'worker';

export interface RolePlan {
  cpu: number;
  memoryMiB: number;
  /** Tasks at the day's average load (never fewer than the policy's minimum). */
  minTasks: number;
  /** Tasks at the peak, with room to drain a backlog while the peak goes on. */
  maxTasks: number;
  /** Resident memory one process is expected to need (MiB), before headroom. */
  expectedRssMiB: number;
}

export interface Limit {
  name: string;
  /**
   * `ceiling`: a part's measured capacity or a size AWS sells; `quota`: an
   * account quota of AWS or a quota of Hireflow's own configuration as given;
   * `setting`: a quota the plan itself sets from the profile (it grows with
   * the load, so it is reported but never binds first).
   */
  kind: 'ceiling' | 'quota' | 'setting';
  /** The profile's peak demand and the limit's capacity, in `unit`. */
  demand: number;
  capacity: number;
  unit: string;
  /** capacity ÷ demand: the factor of this profile's load at which it binds. */
  headroom: number;
  /** What to change when it binds. */
  remedy: string;
}

export interface CapacityPlan {
  profile: LoadProfile;
  /** Peak rates per second. */
  peak: Record<
    'postings' | 'registrations' | 'uploads' | 'apiRequests' | 'events' | 'emails' | 'computations',
    number
  >;
  services: Record<ServiceName, Partial<Record<Role, RolePlan>>>;
  database: {
    class: DatabaseClass;
    connectionsAtMax: number;
    maxConnections: number;
    commitsPerSecond: number;
  };
  /**
   * The subscriber services of this repository (`pnpm new:subscriber`, the
   * registry): one task each, with a pool of its own on the same database.
   */
  subscribers: { name: string; cpu: number; memoryMiB: number; tasks: number; connections: number }[];
  cache: { class: CacheClass; neededGiB: number };
  requestsPerMonth: { snsPublishes: number; sqs: number };
  monthlyCost: { items: Record<string, number>; total: number; fargateAtMax: number };
  /** Every limit, ceilings and quotas, each with its headroom. */
  limits: Limit[];
  /** The limit with the least headroom, a ceiling or a quota (a setting the plan derives never binds). */
  bindsFirst: Limit;
  /** The region whose account quotas apply. */
  region: string;
  /**
   * TENANT_DAILY_EMAIL_QUOTA the stack sets on notifications: the one given,
   * or `tenantDailyEmailQuotaFor(profile)`.
   */
  tenantDailyEmailQuota: number;
}

/** How many times the largest tenant's average day the per-tenant email quota allows. */
export const TENANT_QUOTA_HEADROOM = 2;

/**
 * The per-tenant daily email quota a deployment of this profile sets: an
 * abuse brake, not a capacity, so it must never hold a tenant's ordinary
 * day. TENANT_QUOTA_HEADROOM × the largest tenant's average day (its emails
 * taken ∝ its candidates), rounded up to a thousand, never below the
 * service's default.
 */
export function tenantDailyEmailQuotaFor(profile: LoadProfile): number {
  const { emails } = emailsAt(profile, {
    postings: profile.postingsPerDay,
    registrations: profile.registrationsPerDay,
  });
  const largest = largestTenantEmailsPerDay(profile, emails);
  return Math.max(TENANT_DAILY_EMAIL_QUOTA, Math.ceil((largest * TENANT_QUOTA_HEADROOM) / 1_000) * 1_000);
}

/** Matches, and the emails they and the rest cause (welcomes, match emails, summaries), at rates of postings and registrations. */
function emailsAt(profile: LoadProfile, r: { postings: number; registrations: number }) {
  const matches = r.postings * profile.emailsPerPosting + r.registrations * profile.matchesPerCandidate;
  return { matches, emails: r.registrations + matches + r.postings };
}

function largestTenantEmailsPerDay(profile: LoadProfile, emailsPerDay: number): number {
  const largestShare = Math.max(
    1,
    profile.largestTenantCandidates / Math.max(1, profile.candidatesPerTenant),
  );
  return (emailsPerDay / profile.tenants) * largestShare;
}

/** Postgres connections one process opens: its pool and the outbox relay's LISTEN. */
export const POOL_MAX = 10;
export const CONNECTIONS_PER_PROCESS = POOL_MAX + 1;
/**
 * A subscriber service's task (`pnpm new:subscriber`): the smallest Fargate
 * size, one task, not scaled (no policy of its own). It publishes nothing,
 * so it opens its pool only, no outbox LISTEN.
 */
export const SUBSCRIBER_TASK = { cpu: 256, memoryMiB: 512, tasks: 1 } as const;
/** Kept for migrations, one-off tasks, psql and RDS's own: a share of max_connections. */
export const RESERVED_CONNECTIONS_SHARE = 0.1;
/** The outbound email rate shared by every notifications worker (EMAIL_RATE_MAX). */
export const EMAIL_RATE_MAX = 50;
/** Room over the peak so a fleet drains a backlog while the peak goes on. */
const DRAIN_HEADROOM = 1.5;
const COLLECTOR_MIB = 128;
const MEMORY_HEADROOM = 1.3;
/** Sharp images in flight per media worker (its limiter). */
const RESIZES_IN_FLIGHT = 2;
/** A posting's first computation should take at most this (docs/matching.md: "heard within seconds"). */
const FIRST_COMPUTATION_MS = 1000;
/** The largest Fargate task's memory. */
const LARGEST_TASK_MIB = 122_880;

/** Sizes of the roles: CPU units chosen per role; memory from the expected RSS. */
const ROLE_CPU: Record<ServiceName, Partial<Record<Role, number>>> = {
  jobs: { api: 512, worker: 512 },
  matching: { worker: 1024 },
  notifications: { api: 256, worker: 512 },
  media: { api: 512, worker: 1024 },
};

/** Minimum API tasks: the public entry survives a zone. */
const API_MIN: Partial<Record<ServiceName, number>> = { jobs: 2, notifications: 1, media: 1 };
/** API task maximums the stack keeps even when the profile needs fewer (a burst of clients). */
const API_MAX_FLOOR: Partial<Record<ServiceName, number>> = { jobs: 6, notifications: 2, media: 4 };

export interface CapacityOptions {
  /** The subscriber services the deployment runs beside the four (default: the registry's). */
  subscribers?: readonly Pick<SubscriberDefinition, 'name'>[];
  /** The AWS region, for its account quotas (default eu-west-1, the prices'). */
  region?: string;
  /** TENANT_DAILY_EMAIL_QUOTA as the deployment sets it (default: tenantDailyEmailQuotaFor(profile), which the stack sets). */
  tenantDailyEmailQuota?: number;
}

export function planCapacity(profile: LoadProfile, options: CapacityOptions = {}): CapacityPlan {
  const U = TARGET_UTILISATION;
  const rate = (perDay: number) => perDay / DAY;
  const avg = {
    postings: rate(profile.postingsPerDay),
    registrations: rate(profile.registrationsPerDay),
    uploads: rate(profile.uploadsPerDay),
    apiRequests: rate(profile.apiRequestsPerDay),
  };
  const scale = (r: typeof avg, f: number) =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v * f])) as typeof avg;
  const peakBase = scale(avg, profile.peakFactor);

  // What each stream of work costs per second of load, at a given set of rates.
  const demand = (r: typeof avg) => {
    const { matches, emails } = emailsAt(profile, r);
    const jobsEvents = 2 * r.postings + r.registrations; // posted + closed, registered
    const matchingEvents = r.postings + matches; // job.matched + match.found
    const mediaEvents = r.uploads; // processed or failed
    const computations = r.postings + r.registrations;
    const computeSeconds =
      (r.postings *
        (measured.embedMs.value +
          searchMs(profile.largestTenantCandidates) +
          measured.computationWriteMs.value)) /
        1000 +
      (r.registrations *
        (measured.embedMs.value +
          searchMs(profile.openPostingsPerTenant) +
          measured.computationWriteMs.value)) /
        1000;
    return {
      matches,
      events: jobsEvents + matchingEvents + mediaEvents,
      perService: { jobs: jobsEvents, matching: matchingEvents, media: mediaEvents, notifications: 0 },
      inbox: {
        jobs: r.postings + matches + r.uploads,
        matching: jobsEvents,
        notifications: r.registrations + matches + r.postings,
        media: 0,
      } satisfies Record<ServiceName, number>,
      emails,
      computations,
      computeSeconds,
      images: r.uploads,
      // Writes: every inbox delivery and computation commits once, an email twice (claim, sent), an API write once.
      commits: jobsEvents + matchingEvents + mediaEvents + computations + 2 * emails + r.apiRequests * 0.3,
      api: { jobs: r.apiRequests, media: r.uploads * 4, notifications: emails * 0.01 },
    };
  };
  const atAvg = demand(avg);
  const atPeak = demand(peakBase);

  const vectors = profile.tenants * (profile.candidatesPerTenant + profile.openPostingsPerTenant);
  const vectorMiB = (vectors * measured.bytesPerVector.value) / 1024 ** 2;

  const workersFor = (service: ServiceName, d: ReturnType<typeof demand>): number => {
    const inbox = d.inbox[service] / (measured.inboxMessagesPerSecondPerWorker.value * U);
    const own = {
      jobs: 0,
      matching: d.computeSeconds / U, // one Node thread does the search: a core per worker
      // Two stages in one process, each with its own CPU: the inbox records every notification at once,
      // the sender sends at most the provider's rate (the rest waits in Redis).
      notifications:
        d.inbox.notifications / (measured.notificationIntakesPerSecondPerWorker.value * U) +
        Math.min(d.emails, EMAIL_RATE_MAX) / (measured.emailSendsPerSecondPerWorker.value * U),
      media: d.images / (measured.imagesPerSecondPerVcpu.value * (ROLE_CPU.media.worker! / 1024) * U),
    }[service];
    return Math.max(inbox, own);
  };
  const apiTasksFor = (service: ServiceName, d: ReturnType<typeof demand>): number => {
    const vcpu = (ROLE_CPU[service].api ?? 0) / 1024;
    const rps = d.api[service as keyof typeof d.api] ?? 0;
    return rps / (measured.apiRequestsPerSecondPerVcpu.value * vcpu * U);
  };

  const services = {} as CapacityPlan['services'];
  for (const service of Object.keys(ROLE_CPU) as ServiceName[]) {
    const roles: Partial<Record<Role, RolePlan>> = {};
    const cpu = ROLE_CPU[service];
    if (cpu.api) {
      const min = Math.max(API_MIN[service] ?? 1, Math.ceil(apiTasksFor(service, atAvg)));
      const max = Math.max(
        min,
        API_MAX_FLOOR[service] ?? min,
        Math.ceil(apiTasksFor(service, atPeak) * DRAIN_HEADROOM),
      );
      // The jobs API holds the status streams; its policy scales on CPU, which streams barely use,
      // so its minimum tasks may hold them all.
      const streams =
        service === 'jobs' ? (profile.peakOpenStreams / min) * measured.bytesPerSseStream.value : 0;
      roles.api = sized(cpu.api, measured.apiProcessRssMiB.value + streams / 1024 ** 2, min, max);
    }
    if (cpu.worker) {
      const policy = workerScaling[service];
      const min = Math.max(policy.minWorkers, Math.ceil(workersFor(service, atAvg)));
      const max = Math.max(min, policy.maxWorkers, Math.ceil(workersFor(service, atPeak) * DRAIN_HEADROOM));
      const extra =
        service === 'matching'
          ? vectorMiB
          : service === 'media'
            ? measured.resizeWorkingSetMiB.value * RESIZES_IN_FLIGHT
            : 0;
      roles.worker = sized(cpu.worker, measured.workerProcessRssMiB.value + extra, min, max);
    }
    services[service] = roles;
  }

  const tasks = Object.values(services).flatMap((roles) => Object.values(roles));
  const subscribers = (options.subscribers ?? registeredSubscribers).map(({ name }) => ({
    name,
    cpu: SUBSCRIBER_TASK.cpu,
    memoryMiB: SUBSCRIBER_TASK.memoryMiB,
    tasks: SUBSCRIBER_TASK.tasks,
    // Its pool only: no outbox, so no LISTEN connection.
    connections: SUBSCRIBER_TASK.tasks * POOL_MAX,
  }));
  const connectionsAtMax =
    tasks.reduce((sum, r) => sum + r.maxTasks * CONNECTIONS_PER_PROCESS, 0) +
    subscribers.reduce((sum, s) => sum + s.connections, 0);
  const commitsAtPeak = atPeak.commits;
  const db =
    databaseClasses.find(
      (c) =>
        connectionsAtMax <= usableConnections(c) &&
        commitsAtPeak <= c.vcpu * measured.postgresCommitsPerSecondPerVcpu.value * U,
    ) ?? databaseClasses[databaseClasses.length - 1]!;

  const waitingJobs = (atPeak.emails + atPeak.computations + atPeak.images) * 60 * profile.backlogMinutes;
  const cacheGiB = (2 * waitingJobs * measured.redisBytesPerWaitingJob.value) / 1024 ** 3; // half of maxmemory kept free
  const cache = cacheClasses.find((c) => c.memoryGiB >= cacheGiB) ?? cacheClasses[cacheClasses.length - 1]!;

  // SNS: one publish per event; SQS: per delivery a receive and a delete (batches of up to 10: a tenth
  // each at load, one each when traffic is thin — counted at a third), plus each worker's long polls (one per 20 s).
  const month = 30 * DAY;
  const deliveries = Object.values(atAvg.inbox).reduce((a, b) => a + b, 0);
  const workers = Object.values(services).reduce((sum, r) => sum + (r.worker?.minTasks ?? 0), 0);
  const requestsPerMonth = {
    snsPublishes: atAvg.events * month,
    sqs: deliveries * month * (2 / 3) + (workers * month) / 20,
  };

  // Subscriber tasks run at their one task at the minimum and the maximum alike.
  const subscribersHourly = subscribers.reduce((sum, s) => sum + s.tasks * taskHourly(s), 0);
  const fargateMonthly = (pick: (r: RolePlan) => number) =>
    (tasks.reduce((sum, r) => sum + pick(r) * taskHourly(r), 0) + subscribersHourly) * HOURS_PER_MONTH;
  const items: Record<string, number> = {
    'Fargate (minimum tasks)': fargateMonthly((r) => r.minTasks),
    [`RDS ${db.name}, ${STORAGE_GB} GB gp3`]: db.hourly * HOURS_PER_MONTH + STORAGE_GB * storagePerGbMonth,
    [`ElastiCache ${cache.name}`]: cache.hourly * HOURS_PER_MONTH,
    'SQS requests': (Math.max(0, requestsPerMonth.sqs - 1e6) / 1e6) * perMillion.sqsRequests,
    'SNS publishes': (Math.max(0, requestsPerMonth.snsPublishes - 1e6) / 1e6) * perMillion.snsPublishes,
    ...fixedMonthly,
  };
  const total = Object.values(items).reduce((a, b) => a + b, 0);

  const largestDb = databaseClasses[databaseClasses.length - 1]!;
  // Account quotas. SQS calls at the peak: a receive and a delete per delivery (a third, as the cost counts
  // them) and each worker's long polls at the maximum counts.
  const region = options.region ?? DEFAULT_REGION;
  const maxWorkers = Object.values(services).reduce((sum, r) => sum + (r.worker?.maxTasks ?? 0), 0);
  const sqsRequestsAtPeak =
    Object.values(atPeak.inbox).reduce((a, b) => a + b, 0) * (2 / 3) + maxWorkers / 20;
  // In flight on a service's inbox: each of its workers at its maximum holds its hand and its handlers.
  const busiestQueue = (['jobs', 'matching', 'notifications'] as const)
    .filter((service) => atPeak.inbox[service] > 0)
    .map((service) => ({
      service,
      inFlight: (services[service].worker?.maxTasks ?? 0) * SQS_IN_FLIGHT_PER_CONSUMER,
    }))
    .reduce((a, b) => (b.inFlight > a.inFlight ? b : a), { service: 'jobs' as ServiceName, inFlight: 0 });
  const tenantQuota = options.tenantDailyEmailQuota ?? tenantDailyEmailQuotaFor(profile);
  const tenantQuotaKind = options.tenantDailyEmailQuota === undefined ? 'setting' : 'quota';
  const emailsPerDay = atAvg.emails * DAY;
  const limits: Limit[] = [
    limit(
      'email provider rate (EMAIL_RATE_MAX, shared)',
      atPeak.emails,
      EMAIL_RATE_MAX,
      'emails/s',
      "raise the provider's sending quota and EMAIL_RATE_MAX; past it emails wait (held, not lost)",
      'quota',
    ),
    limit(
      `SNS Publish, account quota in ${region}`,
      atPeak.events,
      snsPublishQuota(region),
      'messages/s',
      'ask AWS for a higher SNS Publish quota (Service Quotas), or spread the services over accounts',
      'quota',
    ),
    limit(
      'SQS API calls, standard queues',
      sqsRequestsAtPeak,
      sqsStandard.apiCallsPerSecond,
      'requests/s',
      'none needed: nearly unlimited for standard queues',
      'quota',
    ),
    limit(
      `SQS in-flight messages per queue (${busiestQueue.service}'s inbox at its maximum workers)`,
      busiestQueue.inFlight,
      sqsStandard.inFlightPerQueue,
      'messages',
      'a smaller hand per consumer (SqsFairnessOptions.hold), or the inbox split over queues (a queue per tenant shard)',
      'quota',
    ),
    limit(
      'tenant daily email quota, an average tenant (TENANT_DAILY_EMAIL_QUOTA)',
      emailsPerDay / profile.tenants,
      tenantQuota,
      'emails/day',
      "raise TENANT_DAILY_EMAIL_QUOTA (per deployment) to the tenants' plans; past it a tenant's emails are held and sent on later days, and a steady excess never drains",
      tenantQuotaKind,
    ),
    limit(
      'tenant daily email quota, the largest tenant (its emails ∝ its candidates)',
      largestTenantEmailsPerDay(profile, emailsPerDay),
      tenantQuota,
      'emails/day',
      "raise TENANT_DAILY_EMAIL_QUOTA, or a quota per tenant's plan; past it the tenant's emails are held and sent on later days",
      tenantQuotaKind,
    ),
    ...(['jobs', 'matching', 'media'] as const).map((service) =>
      limit(
        `${service} outbox relay (one per service)`,
        atPeak.perService[service],
        measured.relayEventsPerSecond.value * U,
        'events/s',
        'partition the outbox (a relay per partition of aggregate ids) or PublishBatch per claim',
      ),
    ),
    limit(
      'matching worker memory (every worker may hold every tenant)',
      vectorMiB + measured.workerProcessRssMiB.value,
      LARGEST_TASK_MIB / MEMORY_HEADROOM - COLLECTOR_MIB,
      'MiB',
      "shard matching workers by tenant: a tenant's index on one worker group",
    ),
    limit(
      'first computation of the largest tenant',
      searchMs(profile.largestTenantCandidates),
      FIRST_COMPUTATION_MS,
      'ms',
      'approximate search (HNSW, bench matching-hnsw) or pgvector past this size',
    ),
    limit(
      'Postgres connections at maximum tasks (largest class)',
      connectionsAtMax,
      usableConnections(largestDb),
      'connections',
      'RDS Proxy (or PgBouncer) in front of Postgres: tasks share a pool',
    ),
    limit(
      'Postgres commits (largest class)',
      commitsAtPeak,
      largestDb.vcpu * measured.postgresCommitsPerSecondPerVcpu.value * U,
      'commits/s',
      "split the services' databases onto instances of their own (each owns its schema already)",
    ),
  ];
  const bindsFirst = limits
    .filter((l) => l.kind !== 'setting')
    .reduce((a, b) => (b.headroom < a.headroom ? b : a));

  return {
    profile,
    peak: {
      postings: peakBase.postings,
      registrations: peakBase.registrations,
      uploads: peakBase.uploads,
      apiRequests: peakBase.apiRequests,
      events: atPeak.events,
      emails: atPeak.emails,
      computations: atPeak.computations,
    },
    services,
    subscribers,
    database: {
      class: db,
      connectionsAtMax,
      maxConnections: maxConnections(db),
      commitsPerSecond: commitsAtPeak,
    },
    cache: { class: cache, neededGiB: cacheGiB },
    requestsPerMonth,
    monthlyCost: { items, total, fargateAtMax: fargateMonthly((r) => r.maxTasks) },
    limits,
    bindsFirst,
    region,
    tenantDailyEmailQuota: tenantQuota,
  };
}

/** Connections the services may use on a class: its max_connections less the reserved share. */
export function usableConnections(db: DatabaseClass): number {
  return Math.floor(maxConnections(db) * (1 - RESERVED_CONNECTIONS_SHARE));
}

/** The smallest Fargate memory for `cpu` that holds the expected RSS with headroom and the collector sidecar. */
export function taskMemoryFor(cpu: number, expectedRssMiB: number): { cpu: number; memoryMiB: number } {
  const need = expectedRssMiB * MEMORY_HEADROOM + COLLECTOR_MIB;
  for (const size of fargate.sizes) {
    if (size.cpu < cpu) continue;
    const memory = size.memoryMiB.find((m) => m >= need);
    if (memory !== undefined) return { cpu: size.cpu, memoryMiB: memory };
  }
  throw new Error(`no Fargate task holds ${Math.ceil(need)} MiB: shard the work (docs/capacity.md)`);
}

function sized(cpu: number, expectedRssMiB: number, minTasks: number, maxTasks: number): RolePlan {
  const size = taskMemoryFor(
    cpu,
    Math.min(expectedRssMiB, (LARGEST_TASK_MIB - COLLECTOR_MIB) / MEMORY_HEADROOM),
  );
  return { ...size, minTasks, maxTasks, expectedRssMiB: Math.round(expectedRssMiB) };
}

function taskHourly(r: { cpu: number; memoryMiB: number }): number {
  return (r.cpu / 1024) * fargate.perVcpuHour + (r.memoryMiB / 1024) * fargate.perGbHour;
}

function limit(
  name: string,
  demand: number,
  capacity: number,
  unit: string,
  remedy: string,
  kind: Limit['kind'] = 'ceiling',
): Limit {
  return {
    name,
    kind,
    demand,
    capacity,
    unit,
    headroom: demand > 0 ? capacity / demand : Number.POSITIVE_INFINITY,
    remedy,
  };
}
