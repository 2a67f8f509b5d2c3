import { openConnection, type RedisConnection } from './connection.ts';

/**
 * The keys BullMQ keeps for a queue besides its tasks' hashes (QueueKeys'
 * list, without the bare `<prefix>:<name>:`): the lists and sets of every
 * state, `id`, `meta`, `events` and the rest. A queue with none of them holds
 * no task in any state.
 */
const QUEUE_KEYS = [
  'active',
  'wait',
  'waiting-children',
  'paused',
  'id',
  'delayed',
  'prioritized',
  'stalled-check',
  'completed',
  'failed',
  'stalled',
  'repeat',
  'limiter',
  'meta',
  'events',
  'pc',
  'marker',
  'de',
];

/**
 * Removes a queue no worker reads any more, with every task still in it
 * (BullMQ's obliterate), for a service that retired it: a compatibility
 * drain, run until every environment ran it once. Cheap once the queue is
 * gone: one EXISTS, and BullMQ is not loaded (issue 31: the jobs service
 * queues no task, and its processes do not carry BullMQ's ~8 MB for this).
 * Returns how many tasks it held.
 */
export async function dropRetiredQueue(options: {
  name: string;
  connection: RedisConnection;
  prefix?: string;
}): Promise<number> {
  const connection = openConnection(options.connection, false);
  try {
    const base = `${options.prefix ?? 'bull'}:${options.name}`;
    if ((await connection.redis.exists(...QUEUE_KEYS.map((key) => `${base}:${key}`))) === 0) return 0;
    const { Queue } = await import('./classes.ts');
    // skipMetasUpdate: a Queue writes its settings into Redis when made, which would bring the queue back.
    const queue = new Queue(options.name, {
      connection: connection.redis,
      prefix: options.prefix,
      skipMetasUpdate: true,
    });
    queue.on('error', () => undefined);
    try {
      const counts = await queue.getJobCounts();
      const held = Object.values(counts).reduce((sum, n) => sum + n, 0);
      await queue.obliterate({ force: true });
      return held;
    } finally {
      await queue.close();
    }
  } finally {
    await connection.release();
  }
}
