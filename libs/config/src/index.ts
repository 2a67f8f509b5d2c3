export type { ConfigVariable } from './describe.ts';
export { describeConfig } from './describe.ts';
export type { ConfigIssue } from './parse.ts';
export { ConfigError, parseConfig } from './parse.ts';
export type { Role } from './variables.ts';
export {
  awsEndpointUrl,
  awsRegion,
  databaseUrl,
  eventLogRetentionDays,
  headroom,
  logLevel,
  otelEndpoint,
  port,
  positiveInt,
  publicBaseUrl,
  redisUrl,
  role,
  smtpUrl,
  tenantConcurrency,
  topologyPrefix,
} from './variables.ts';
