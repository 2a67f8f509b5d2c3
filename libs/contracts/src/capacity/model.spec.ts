import { describe, expect, it } from 'vitest';
import { registeredSubscribers } from '../subscribers.registry.ts';
import { measured, searchMs } from './measured.ts';
import {
  type LoadProfile,
  planCapacity,
  taskMemoryFor,
  tenantDailyEmailQuotaFor,
  usableConnections,
} from './model.ts';
import { databaseClasses, fargate, HOURS_PER_MONTH, maxConnections } from './prices.ts';
import { capacityProfiles } from './profiles.ts';
import { TENANT_DAILY_EMAIL_QUOTA } from './quotas.ts';

const small = capacityProfiles.small!;

describe('the capacity model', () => {
  it('sizes the small profile as the stack and the README cost table have it', () => {
    const plan = planCapacity(small);
    expect(plan.services.jobs.api).toMatchObject({ cpu: 512, memoryMiB: 1024, minTasks: 2, maxTasks: 6 });
    expect(plan.services.matching.worker).toMatchObject({
      cpu: 1024,
      memoryMiB: 2048,
      minTasks: 1,
      maxTasks: 6,
    });
    expect(plan.services.notifications.api).toMatchObject({
      cpu: 256,
      memoryMiB: 512,
      minTasks: 1,
      maxTasks: 2,
    });
    expect(plan.services.media.worker).toMatchObject({
      cpu: 1024,
      memoryMiB: 2048,
      minTasks: 2,
      maxTasks: 6,
    });
    // A worker plans at its measured RSS (195 MiB) × 1.3 + the collector's 128 MiB = 382 MiB: 0.5 vCPU's 1 GB.
    expect(plan.services.notifications.worker).toMatchObject({
      cpu: 512,
      memoryMiB: 1024,
      expectedRssMiB: 195,
    });
    expect(plan.database.class.name).toBe('db.t4g.medium');
    expect(plan.cache.class.name).toBe('cache.t4g.small');
    // README: Fargate 207 at the minimum counts, about 775 at the maximum, about 450 in all.
    expect(Math.round(plan.monthlyCost.items['Fargate (minimum tasks)']!)).toBe(207);
    expect(Math.round(plan.monthlyCost.fargateAtMax)).toBe(775);
    expect(plan.monthlyCost.total).toBeGreaterThan(440);
    expect(plan.monthlyCost.total).toBeLessThan(460);
    // 32 tasks at their maximum × (pool 10 + LISTEN) = 352 of db.t4g.medium's 364 usable.
    expect(plan.database.connectionsAtMax).toBe(352);
    expect(usableConnections(plan.database.class)).toBe(364);
  });

  it('computes the peak from the day and the peak factor', () => {
    const plan = planCapacity({ ...small, peakFactor: 1 });
    expect(plan.peak.postings).toBeCloseTo(3_000 / 86_400, 9);
    // welcome + match emails + summaries: 20,000 + (3,000 × 5 + 20,000 × 2) + 3,000 a day
    expect(plan.peak.emails * 86_400).toBeCloseTo(78_000, 3);
    expect(planCapacity(small).peak.emails).toBeCloseTo(plan.peak.emails * small.peakFactor, 9);
  });

  it('grows the fleet with the load, never shrinking a role', () => {
    const a = planCapacity(capacityProfiles.x100!);
    const b = planCapacity(capacityProfiles.x10000!);
    for (const service of ['jobs', 'matching', 'notifications', 'media'] as const) {
      expect(b.services[service].worker!.maxTasks).toBeGreaterThanOrEqual(
        a.services[service].worker!.maxTasks,
      );
      expect(b.services[service].worker!.memoryMiB).toBeGreaterThanOrEqual(
        a.services[service].worker!.memoryMiB,
      );
    }
    expect(b.monthlyCost.total).toBeGreaterThan(a.monthlyCost.total);
  });

  it("plans notifications as two stages of one process: the inbox at every event, the sender at the provider's rate", () => {
    // 1 ÷ (1/630 + 1/270) = 189: below the provider's rate the two stages are the end-to-end 190/s.
    const intake = measured.notificationIntakesPerSecondPerWorker.value;
    const send = measured.emailSendsPerSecondPerWorker.value;
    expect(1 / (1 / intake + 1 / send)).toBeCloseTo(189, 0);
    // x10000: 780M notifications a day (200M welcomes, 550M match emails, 30M summaries) = 9,028/s,
    // 36,111/s at the peak; the sender is held to 50/s. Workers at 60 %:
    // average 9,028/378 + 50/162 = 24.2 → 25; peak 36,111/378 + 50/162 = 95.8, × 1.5 → 144.
    // (As one stage, the larger of the inbox's 800/s and 190 emails/s, it was 19–113.)
    const plan = planCapacity(capacityProfiles.x10000!);
    expect(plan.services.notifications.worker).toMatchObject({ minTasks: 25, maxTasks: 144 });
    // The sender's part is fixed by the rate: doubling the events doubles only the inbox's.
    const double = planCapacity({
      ...capacityProfiles.x10000!,
      registrationsPerDay: 400_000_000,
      postingsPerDay: 60_000_000,
    });
    expect(double.services.notifications.worker!.maxTasks).toBe(
      Math.ceil(((2 * 36_111.1) / 378 + 50 / 162) * 1.5),
    );
  });

  it('holds every tenant vector in each matching worker: 1.68 KB each', () => {
    const vectors = 5_000 * (2_000 + 200);
    const plan = planCapacity(capacityProfiles.x100!);
    expect(plan.services.matching.worker!.expectedRssMiB).toBe(
      Math.round(measured.workerProcessRssMiB.value + (vectors * 1_680) / 1024 ** 2),
    );
    // 17.9 GB of vectors does not fit 1 vCPU's 8 GB: the model moves to the 4-vCPU sizes.
    expect(plan.services.matching.worker).toMatchObject({ cpu: 4096 });
  });

  it('sizes the jobs API for its open status streams, all of them on the minimum tasks', () => {
    // small: 300 streams on 2 tasks × 42,000 bytes = 6 MiB over the process's 205: still 0.5 vCPU's 1 GB.
    expect(planCapacity(small).services.jobs.api).toMatchObject({
      memoryMiB: 1024,
      expectedRssMiB: Math.round(205 + (150 * 42_000) / 1024 ** 2),
    });
    // x100: 30,000 streams on 2 tasks: 15,000 each, 601 MiB more, 806 MiB × 1.3 + 128 = 1,176: the 2 GB size.
    const x100 = planCapacity(capacityProfiles.x100!).services.jobs.api!;
    expect(x100).toMatchObject({ cpu: 512, memoryMiB: 2048, minTasks: 2, expectedRssMiB: 806 });
    // No stream, no memory for them: the process's own figure.
    expect(planCapacity({ ...small, peakOpenStreams: 0 }).services.jobs.api!.expectedRssMiB).toBe(
      measured.apiProcessRssMiB.value,
    );
    expect(measured.bytesPerSseStream.value).toBe(42_000);
  });

  it('says which limit binds first, with its headroom, ceilings and quotas alike', () => {
    // x100: the email provider's rate, 361 emails/s at the peak against 50. The per-tenant quota the plan
    // sets itself (twice the largest tenant's 156,000 a day) is reported, never the binding limit.
    const x100 = planCapacity(capacityProfiles.x100!);
    expect(x100.bindsFirst).toMatchObject({ kind: 'quota' });
    expect(x100.bindsFirst.name).toMatch(/email provider rate/);
    expect(x100.tenantDailyEmailQuota).toBe(312_000);
    const set = x100.limits.find((l) => l.name.includes('the largest tenant'))!;
    expect(set).toMatchObject({ kind: 'setting', capacity: 312_000 });
    expect(set.demand).toBeCloseTo(156_000, 6);
    // The service's default quota given as the deployment's: the largest tenant's day binds first.
    const defaulted = planCapacity(capacityProfiles.x100!, { tenantDailyEmailQuota: 1_000 });
    expect(defaulted.bindsFirst.name).toMatch(/tenant daily email quota, the largest tenant/);
    expect(defaulted.bindsFirst).toMatchObject({ kind: 'quota' });
    expect(defaulted.bindsFirst.headroom).toBeCloseTo(1_000 / 156_000, 9);
    const huge = planCapacity(capacityProfiles.x10000!);
    const memory = huge.limits.find((l) => l.name.startsWith('matching worker memory'))!;
    expect(memory).toMatchObject({ kind: 'ceiling' });
    expect(memory.headroom).toBeLessThan(1);
    const noEmail: LoadProfile = {
      ...small,
      registrationsPerDay: 0,
      emailsPerPosting: 0,
      postingsPerDay: 0,
      matchesPerCandidate: 0,
    };
    expect(planCapacity(noEmail).bindsFirst.name).not.toMatch(/email/);
    // No email at all: the quota stays the service's default.
    expect(tenantDailyEmailQuotaFor(noEmail)).toBe(TENANT_DAILY_EMAIL_QUOTA);
  });

  it("counts the per-tenant email quota on an average tenant's day and on the largest tenant's", () => {
    // small: 78,000 emails a day over 50 tenants = 1,560 each; the largest tenant has 10× the candidates.
    // The plan sets the quota to twice the largest's 15,600, rounded up to a thousand: 32,000.
    const plan = planCapacity(small);
    expect(plan.tenantDailyEmailQuota).toBe(32_000);
    expect(tenantDailyEmailQuotaFor(small)).toBe(32_000);
    const average = plan.limits.find((l) => l.name.includes('an average tenant'))!;
    const largest = plan.limits.find((l) => l.name.includes('the largest tenant'))!;
    expect(average).toMatchObject({ kind: 'setting', capacity: 32_000, unit: 'emails/day' });
    expect(average.demand).toBeCloseTo(1_560, 6);
    expect(largest.demand).toBeCloseTo(15_600, 6);
    // A setting never binds: of load, the database's connections (12.8×).
    expect(plan.bindsFirst.name).toMatch(/Postgres connections/);
    // Set as a deployment sets it (below the largest tenant's day): it binds.
    const low = planCapacity(small, { tenantDailyEmailQuota: 10_000 });
    expect(low.tenantDailyEmailQuota).toBe(10_000);
    expect(low.bindsFirst.name).toMatch(/the largest tenant/);
    expect(low.bindsFirst.headroom).toBeCloseTo(10_000 / 15_600, 9);
    expect(planCapacity(small, { tenantDailyEmailQuota: 1_000_000 }).bindsFirst.name).toMatch(
      /Postgres connections/,
    );
  });

  it("counts every published message against the region's SNS Publish quota", () => {
    // x10000: 41,204 events a second at the peak, each one message published.
    const plan = planCapacity(capacityProfiles.x10000!);
    const sns = plan.limits.find((l) => l.name.startsWith('SNS Publish'))!;
    expect(sns).toMatchObject({ kind: 'quota', capacity: 9_000, unit: 'messages/s' });
    expect(sns.demand).toBeCloseTo(plan.peak.events, 9);
    expect(sns.headroom).toBeLessThan(1);
    expect(sns.name).toMatch(/eu-west-1/);
    expect(
      planCapacity(capacityProfiles.x10000!, { region: 'us-east-1' }).limits.find((l) =>
        l.name.startsWith('SNS Publish'),
      ),
    ).toMatchObject({ capacity: 30_000 });
    // x100 at 5× its peak factor in a 1,500/s region: 2,060 messages a second, past the quota, and said so.
    const sydney = planCapacity({ ...capacityProfiles.x100!, peakFactor: 20 }, { region: 'ap-southeast-2' });
    const over = sydney.limits.find((l) => l.name === 'SNS Publish, account quota in ap-southeast-2')!;
    expect(over.capacity).toBe(1_500);
    expect(over.demand).toBeCloseTo(2_060, 0);
    expect(over.headroom).toBeCloseTo(1_500 / sydney.peak.events, 9);
    expect(over.headroom).toBeLessThan(1);
    expect(over.remedy).toMatch(/Service Quotas/);
  });

  it('counts the in-flight messages each inbox queue holds at its maximum workers: 110 a consumer', () => {
    // x10000: 1,682 matching workers × (10 handlers + a hand of 100) = 185,020 against 120,000.
    const plan = planCapacity(capacityProfiles.x10000!);
    const inFlight = plan.limits.find((l) => l.name.startsWith('SQS in-flight'))!;
    expect(inFlight.name).toMatch(/matching's inbox/);
    expect(inFlight.demand).toBe(plan.services.matching.worker!.maxTasks * 110);
    expect(inFlight.capacity).toBe(120_000);
    // Standard queues' API calls: nearly unlimited, never the binding limit.
    const calls = plan.limits.find((l) => l.name.startsWith('SQS API calls'))!;
    expect(calls.headroom).toBe(Number.POSITIVE_INFINITY);
  });

  it("counts each registry subscriber's task and pool in the connections, the class and the cost", () => {
    const four = planCapacity(small, { subscribers: [] });
    expect(four.subscribers).toEqual([]);
    const two = planCapacity(small, { subscribers: [{ name: 'analytics' }, { name: 'crm' }] });
    // One task each of 0.25 vCPU, 512 MiB, its pool of 10 (no outbox LISTEN: a subscriber publishes nothing).
    expect(two.subscribers).toEqual([
      { name: 'analytics', cpu: 256, memoryMiB: 512, tasks: 1, connections: 10 },
      { name: 'crm', cpu: 256, memoryMiB: 512, tasks: 1, connections: 10 },
    ]);
    expect(two.database.connectionsAtMax).toBe(352 + 20);
    // 372 connections are past db.t4g.medium's 364 usable: the model takes the next class.
    expect(two.database.class.name).toBe('db.t4g.large');
    // 2 × (0.25 vCPU + 0.5 GB) a month at both counts.
    const subscriberMonthly = 2 * (0.25 * fargate.perVcpuHour + 0.5 * fargate.perGbHour) * HOURS_PER_MONTH;
    expect(two.monthlyCost.items['Fargate (minimum tasks)']!).toBeCloseTo(
      four.monthlyCost.items['Fargate (minimum tasks)']! + subscriberMonthly,
      6,
    );
    expect(two.monthlyCost.fargateAtMax).toBeCloseTo(four.monthlyCost.fargateAtMax + subscriberMonthly, 6);
    // One subscriber still fits the default class: 362 of 364.
    const one = planCapacity(small, { subscribers: [{ name: 'analytics' }] });
    expect(one.database).toMatchObject({ connectionsAtMax: 362, class: { name: 'db.t4g.medium' } });
    // By default the registry's subscribers (none registered in this repository yet).
    expect(planCapacity(small).subscribers.map((s) => s.name)).toEqual(
      registeredSubscribers.map((s: { name: string }) => s.name),
    );
  });

  it("picks a database class that holds the pools' connections", () => {
    const plan = planCapacity(capacityProfiles.x100!);
    expect(plan.database.connectionsAtMax).toBeLessThanOrEqual(usableConnections(plan.database.class));
    expect(plan.database.class.name).not.toBe('db.t4g.medium');
  });
});

describe('sizes and prices', () => {
  it('takes the smallest Fargate memory that holds the RSS with headroom and the collector', () => {
    expect(taskMemoryFor(512, 235)).toEqual({ cpu: 512, memoryMiB: 1024 });
    expect(taskMemoryFor(256, 235)).toEqual({ cpu: 256, memoryMiB: 512 });
    expect(taskMemoryFor(1024, 6_000)).toEqual({ cpu: 1024, memoryMiB: 8192 });
    expect(taskMemoryFor(1024, 7_000)).toEqual({ cpu: 2048, memoryMiB: 10240 });
    expect(() => taskMemoryFor(1024, 200_000)).toThrow(/no Fargate task/);
  });

  it("RDS's default max_connections", () => {
    expect(maxConnections(databaseClasses[0]!)).toBe(405);
    expect(maxConnections(databaseClasses[databaseClasses.length - 1]!)).toBe(5000);
  });

  it('interpolates search time between the measured points', () => {
    expect(searchMs(10_000)).toBeCloseTo(0.93, 6);
    expect(searchMs(1_000_000)).toBeCloseTo(233, 6);
    const mid = searchMs(300_000);
    expect(mid).toBeGreaterThan(19.7);
    expect(mid).toBeLessThan(233);
    expect(searchMs(2_000_000)).toBeCloseTo(466, 6);
    expect(searchMs(5_000)).toBeCloseTo(0.465, 6);
  });
});
