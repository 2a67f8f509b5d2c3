export type { DeadLetterQueue, DeadLetterView } from './dlq.ts';
export { deadLetterDepths, peekDeadLetters, redriveDeadLetters } from './dlq.ts';
export type { Sample } from './local/prometheus.ts';
export { parseMetrics, select } from './local/prometheus.ts';
export type { ProvisionedQueue, ProvisionedTopology, ProvisionOptions } from './provision.ts';
export { provisionTopology } from './provision.ts';
