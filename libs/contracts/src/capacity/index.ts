export type { Measurement } from './measured.ts';
export { measured, searchMs, TARGET_UTILISATION } from './measured.ts';
export type { CapacityOptions, CapacityPlan, Limit, LoadProfile, Role, RolePlan } from './model.ts';
export {
  CONNECTIONS_PER_PROCESS,
  EMAIL_RATE_MAX,
  POOL_MAX,
  planCapacity,
  SUBSCRIBER_TASK,
  taskMemoryFor,
  usableConnections,
} from './model.ts';
export type { CacheClass, DatabaseClass } from './prices.ts';
export { cacheClasses, databaseClasses, fargate, maxConnections } from './prices.ts';
export { capacityProfiles, DEFAULT_CAPACITY_PROFILE } from './profiles.ts';
export * from './quotas.ts';
