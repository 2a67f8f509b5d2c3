export type { DeadLetterAlarms } from './alarms.ts';
export { deadLetterAlarms } from './alarms.ts';
export { BULL_BOARD_PATH, registerBullBoard } from './bull-board.ts';
export type { QueueHandles } from './queue-handles.ts';
export { queueHandles } from './queue-handles.ts';
export type { QueueGauges, ServiceMetrics } from './registry.ts';
export { createMetrics } from './registry.ts';
export type { OutboxStats, QueueSamplerOptions } from './sampler.ts';
export { sampleQueues, startQueueSampler } from './sampler.ts';
