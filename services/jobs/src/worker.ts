import type { Closeable, ServiceDeps } from '@hireflow/runtime';
import type { Config } from './config.ts';

/** Starts the jobs worker role: SQS consumers, BullMQ workers, outbox relay. */
export async function startWorker(_config: Config, _deps: ServiceDeps): Promise<Closeable[]> {
  return [];
}
