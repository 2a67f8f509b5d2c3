import type { Closeable, ServiceDeps } from '@hireflow/runtime';
import type { Config } from './config.ts';

/** The matching worker role. Nothing runs in it yet: the service has no consumers or jobs so far. */
export async function startWorker(_config: Config, _deps: ServiceDeps): Promise<Closeable[]> {
  return [];
}
