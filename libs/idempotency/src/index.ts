export type { IdempotentBatcherOptions } from './batcher.ts';
export { IdempotentBatcher } from './batcher.ts';
export {
  IdempotencyConflictError,
  IdempotencyInProgressError,
  IdempotencyLeaseLostError,
} from './errors.ts';
export { HANDLER_LEASE_MS, handleOnce } from './handle-once.ts';
export type { IdempotencyPluginOptions } from './http-plugin.ts';
export { idempotencyPlugin } from './http-plugin.ts';
export type { IdempotencyClaim, IdempotentOptions, IdempotentWork } from './idempotent.ts';
export { idempotent, startHeartbeat } from './idempotent.ts';
export type { KeyPart } from './key.ts';
export { idempotencyKey, idFromKey } from './key.ts';
export { idempotencyMigrations, processedMessageTable } from './migrations.ts';
export type { PruneOptions } from './prune.ts';
export { pruneExpired } from './prune.ts';
export type { IdempotentStatementOptions, StatementWork } from './statement.ts';
export { idempotentStatement } from './statement.ts';
export { DEFAULT_LEASE_MS, DEFAULT_RETENTION_MS } from './store.ts';
