import { createRequire } from 'node:module';
import type * as IORedis from 'ioredis';

// `require`d, not imported: the telemetry preload's ioredis instrumentation
// patches the class's prototype as require-in-the-middle sees ioredis
// `require`d; an ESM import (BullMQ's own included) then shares that class.
// The preload's ESM hook wraps no package (docs/tracing.md, "What a process loads").
const { Redis } = createRequire(import.meta.url)('ioredis') as typeof IORedis;
type Redis = IORedis.Redis;

/** A Redis URL (the factory opens and quits its own connection) or an ioredis instance (the caller's to quit). */
export type RedisConnection = string | Redis;

export interface OwnedConnection {
  redis: Redis;
  release(): Promise<void>;
}

/**
 * BullMQ never closes an ioredis it is given, so whoever opens one quits it.
 * Workers block on Redis and need `maxRetriesPerRequest: null`.
 */
export function openConnection(connection: RedisConnection, forWorker: boolean): OwnedConnection {
  if (typeof connection !== 'string') {
    if (forWorker && connection.options.maxRetriesPerRequest !== null) {
      throw new Error('a BullMQ worker needs an ioredis connection with maxRetriesPerRequest: null');
    }
    return { redis: connection, release: async () => undefined };
  }
  const redis = new Redis(connection, { maxRetriesPerRequest: forWorker ? null : 20 });
  return {
    redis,
    release: async () => {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
