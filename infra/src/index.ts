export type { AwsSettings } from './aws.ts';
export { createSnsClient, createSqsClient } from './aws.ts';
export { awsConfigSchema, awsSettings } from './aws-config.ts';
export type { DeadLetterQueue, DeadLetterView } from './dlq.ts';
export { deadLetterDepths, peekDeadLetters, redriveDeadLetters } from './dlq.ts';
export type { Emulator } from './emulator.ts';
export { startEmulator } from './emulator.ts';
export type { ProvisionedQueue, ProvisionedTopology, ProvisionOptions } from './provision.ts';
export { provisionTopology } from './provision.ts';
export type {
  QueueDefinition,
  ServiceName,
  SubscriptionDefinition,
  TopicDefinition,
  Topology,
} from './topology.ts';
export {
  DEFAULT_MAX_RECEIVE_COUNT,
  DEFAULT_VISIBILITY_TIMEOUT_SECONDS,
  dlqName,
  serviceChannels,
  topology,
} from './topology.ts';
