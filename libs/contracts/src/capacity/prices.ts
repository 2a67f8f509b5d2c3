// What AWS charges and offers, as data for the capacity model: eu-west-1
// (Ireland) on-demand list prices in USD, as the README's cost table assumes
// them, and the sizes each service sells. The README's figures are the
// source for the classes the stack uses today; the larger classes' prices
// are the same regional list's and are assumptions to check against the AWS
// Pricing Calculator before relying on them.

export const HOURS_PER_MONTH = 730;

export const fargate = {
  perVcpuHour: 0.04048,
  perGbHour: 0.004445,
  /** Valid task sizes: CPU units → the memory sizes (MiB) Fargate allows with them. */
  sizes: [
    { cpu: 256, memoryMiB: [512, 1024, 2048] },
    { cpu: 512, memoryMiB: range(1024, 4096, 1024) },
    { cpu: 1024, memoryMiB: range(2048, 8192, 1024) },
    { cpu: 2048, memoryMiB: range(4096, 16384, 1024) },
    { cpu: 4096, memoryMiB: range(8192, 30720, 1024) },
    { cpu: 8192, memoryMiB: range(16384, 61440, 4096) },
    { cpu: 16384, memoryMiB: range(32768, 122880, 8192) },
  ],
} as const;

export interface DatabaseClass {
  name: string;
  vcpu: number;
  memoryGiB: number;
  hourly: number;
}

/** RDS for PostgreSQL, single-AZ (Multi-AZ doubles the instance). */
export const databaseClasses: DatabaseClass[] = [
  { name: 'db.t4g.medium', vcpu: 2, memoryGiB: 4, hourly: 0.072 },
  { name: 'db.t4g.large', vcpu: 2, memoryGiB: 8, hourly: 0.144 },
  { name: 'db.m6g.xlarge', vcpu: 4, memoryGiB: 16, hourly: 0.344 },
  { name: 'db.m6g.2xlarge', vcpu: 8, memoryGiB: 32, hourly: 0.688 },
  { name: 'db.m6g.4xlarge', vcpu: 16, memoryGiB: 64, hourly: 1.376 },
  { name: 'db.m6g.8xlarge', vcpu: 32, memoryGiB: 128, hourly: 2.752 },
];
export const STORAGE_GB = 50;
export const storagePerGbMonth = 0.127;

/**
 * RDS for PostgreSQL's default: LEAST(DBInstanceClassMemory / 9531392, 5000).
 * DBInstanceClassMemory is the class's memory less what the OS and RDS keep;
 * 90 % of it is the assumption here (check `SHOW max_connections` on the instance).
 */
export function maxConnections(db: DatabaseClass): number {
  return Math.min(Math.floor((db.memoryGiB * 0.9 * 1024 ** 3) / 9_531_392), 5000);
}

export interface CacheClass {
  name: string;
  memoryGiB: number;
  hourly: number;
}

/** ElastiCache for Redis, one node. */
export const cacheClasses: CacheClass[] = [
  { name: 'cache.t4g.small', memoryGiB: 1.37, hourly: 0.036 },
  { name: 'cache.t4g.medium', memoryGiB: 3.09, hourly: 0.072 },
  { name: 'cache.m6g.large', memoryGiB: 6.38, hourly: 0.166 },
  { name: 'cache.m6g.xlarge', memoryGiB: 12.93, hourly: 0.332 },
  { name: 'cache.m6g.2xlarge', memoryGiB: 26.04, hourly: 0.664 },
];

export const perMillion = { sqsRequests: 0.4, snsPublishes: 0.5 };

/** The README's other monthly items, which do not grow with the fleet in this model. */
export const fixedMonthly = {
  'Container Insights': 50,
  'NAT gateway + 50 GB': 37,
  'ALB + ~0.5 LCU': 21,
  'X-Ray (10 % of traces)': 16,
  'public IPv4': 11,
  'CloudWatch logs and alarms, Secrets Manager, KMS, S3': 19,
} as const;

function range(from: number, to: number, step: number): number[] {
  const out: number[] = [];
  for (let v = from; v <= to; v += step) out.push(v);
  return out;
}
