// `pnpm capacity [--profile small|x100|x10000] [--<field> N …] [--json]`:
// what a load takes on AWS, from the capacity model (libs/contracts/src/capacity,
// docs/capacity.md): task sizes and counts per service and role, the database
// and cache classes, Postgres connections at the maximum counts, SNS/SQS
// requests, the monthly cost, and each limit's headroom — the parts'
// ceilings and the quotas (AWS's account quotas of the region, the
// per-tenant email quota) — the first to bind marked. A field given overrides the profile's, e.g.
// `pnpm capacity --tenants 500 --candidates-per-tenant 20000 --postings-per-day 5000`.
import { parseArgs } from 'node:util';
import {
  type CapacityPlan,
  capacityProfiles,
  DEFAULT_CAPACITY_PROFILE,
  DEFAULT_REGION,
  type LoadProfile,
  planCapacity,
  usableConnections,
} from '@hireflow/contracts/capacity';

const NUMERIC: (keyof LoadProfile)[] = [
  'tenants',
  'candidatesPerTenant',
  'largestTenantCandidates',
  'openPostingsPerTenant',
  'postingsPerDay',
  'registrationsPerDay',
  'uploadsPerDay',
  'apiRequestsPerDay',
  'peakOpenStreams',
  'emailsPerPosting',
  'matchesPerCandidate',
  'peakFactor',
  'backlogMinutes',
];
const flag = (field: string) => field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

const { values } = parseArgs({
  options: {
    profile: { type: 'string', default: DEFAULT_CAPACITY_PROFILE },
    region: { type: 'string', default: DEFAULT_REGION },
    'tenant-daily-email-quota': { type: 'string' },
    json: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
    ...Object.fromEntries(NUMERIC.map((f) => [flag(f), { type: 'string' as const }])),
  },
});

if (values.help) {
  console.log(
    `usage: pnpm capacity [--profile ${Object.keys(capacityProfiles).join('|')}] [--region ${DEFAULT_REGION}] [--tenant-daily-email-quota N] [--json] ${NUMERIC.map((f) => `[--${flag(f)} N]`).join(' ')}`,
  );
  process.exit(0);
}
const base = capacityProfiles[values.profile as string];
if (!base) {
  console.error(`no profile ${values.profile}; have ${Object.keys(capacityProfiles).join(', ')}`);
  process.exit(64);
}
const profile: LoadProfile = { ...base };
const overridden: string[] = [];
for (const field of NUMERIC) {
  const raw = (values as Record<string, unknown>)[flag(field)];
  if (raw === undefined) continue;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) {
    console.error(`--${flag(field)} must be a number ≥ 0, got ${String(raw)}`);
    process.exit(64);
  }
  (profile as unknown as Record<string, number>)[field] = n;
  overridden.push(field);
}
if (overridden.length > 0) {
  profile.name = `${base.name}+`;
  profile.description = `${base.description}, with ${overridden.map(flag).join(', ')} given`;
}

const quotaRaw = values['tenant-daily-email-quota'];
const tenantDailyEmailQuota = quotaRaw === undefined ? undefined : Number(quotaRaw);
if (
  tenantDailyEmailQuota !== undefined &&
  !(Number.isInteger(tenantDailyEmailQuota) && tenantDailyEmailQuota > 0)
) {
  console.error(`--tenant-daily-email-quota must be a whole number > 0, got ${String(quotaRaw)}`);
  process.exit(64);
}
const plan = planCapacity(profile, {
  region: values.region as string,
  ...(tenantDailyEmailQuota === undefined ? {} : { tenantDailyEmailQuota }),
});
if (values.json) {
  console.log(JSON.stringify(plan, null, 2));
} else {
  print(plan);
}

function print(p: CapacityPlan): void {
  const n = (v: number, digits = 0) => v.toLocaleString('en-US', { maximumFractionDigits: digits });
  console.log(`profile ${p.profile.name}: ${p.profile.description}\n`);
  console.log('peak (per second):');
  console.table(Object.fromEntries(Object.entries(p.peak).map(([k, v]) => [k, n(v, 2)])));
  console.log('tasks per service and role:');
  console.table([
    ...Object.entries(p.services).flatMap(([service, roles]) =>
      Object.entries(roles).map(([role, r]) => ({
        service,
        role,
        vCPU: r.cpu / 1024,
        'memory GiB': r.memoryMiB / 1024,
        'expected RSS MiB': r.expectedRssMiB,
        min: r.minTasks,
        max: r.maxTasks,
      })),
    ),
    // The registry's subscriber services: one task each, not scaled.
    ...p.subscribers.map((s) => ({
      service: s.name,
      role: 'subscriber',
      vCPU: s.cpu / 1024,
      'memory GiB': s.memoryMiB / 1024,
      'expected RSS MiB': '—',
      min: s.tasks,
      max: s.tasks,
    })),
  ]);
  console.log(
    `Postgres ${p.database.class.name}: ${n(p.database.connectionsAtMax)} connections at the maximum tasks of ${n(usableConnections(p.database.class))} usable (max_connections ${n(p.database.maxConnections)}), ${n(p.database.commitsPerSecond)} commits/s at the peak`,
  );
  console.log(
    `Redis ${p.cache.class.name}: ${n(p.cache.neededGiB, 3)} GiB needed for the backlog (half kept free)`,
  );
  console.log(
    `requests a month: SNS ${n(p.requestsPerMonth.snsPublishes / 1e6, 1)} M publishes, SQS ${n(p.requestsPerMonth.sqs / 1e6, 1)} M\n`,
  );
  console.log('monthly cost (USD, eu-west-1 list prices):');
  console.table(Object.fromEntries(Object.entries(p.monthlyCost.items).map(([k, v]) => [k, Math.round(v)])));
  console.log(
    `total ≈ $${n(p.monthlyCost.total)} a month; Fargate at the maximum tasks $${n(p.monthlyCost.fargateAtMax)}\n`,
  );
  console.log(
    `limits, ceilings and quotas (${p.region}'s account quotas; headroom = the factor of this load at which each binds):`,
  );
  const of = (v: number, unit: string) => (Number.isFinite(v) ? `${n(v, 1)} ${unit}` : 'unlimited');
  console.table(
    [...p.limits]
      .sort((a, b) => a.headroom - b.headroom)
      .map((l) => ({
        limit: l.name,
        kind: l.kind,
        demand: of(l.demand, l.unit),
        capacity: of(l.capacity, l.unit),
        headroom: Number.isFinite(l.headroom) ? `${n(l.headroom, 3)}×` : '∞',
      })),
  );
  console.log(
    `binds first: ${p.bindsFirst.name}, a ${p.bindsFirst.kind} (${n(p.bindsFirst.headroom, 3)}×) — ${p.bindsFirst.remedy}`,
  );
}
