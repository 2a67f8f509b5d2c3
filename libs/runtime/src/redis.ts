import type { Redis } from 'ioredis';

/** Closes an ioredis connection without hanging: QUIT waits for a reply that never comes while Redis is away. */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
  else redis.disconnect();
}
