import { Queue } from 'bullmq';
import { openConnection, type RedisConnection } from './connection.ts';

/**
 * Removes a queue no worker reads any more, with every task still in it
 * (BullMQ's obliterate), for a service that retired it: a compatibility
 * drain, run until every environment ran it once. Cheap once the queue is
 * gone (one EXISTS). Returns how many tasks it held.
 */
export async function dropRetiredQueue(options: {
  name: string;
  connection: RedisConnection;
  prefix?: string;
}): Promise<number> {
  const connection = openConnection(options.connection, false);
  // skipMetasUpdate: a Queue writes its settings into Redis when made, which would bring the queue back.
  const queue = new Queue(options.name, {
    connection: connection.redis,
    prefix: options.prefix,
    skipMetasUpdate: true,
  });
  queue.on('error', () => undefined);
  try {
    const { meta, id, events } = queue.keys;
    const counts = await queue.getJobCounts();
    const held = Object.values(counts).reduce((sum, n) => sum + n, 0);
    if (held === 0 && (await connection.redis.exists(meta!, id!, events!)) === 0) return 0;
    await queue.obliterate({ force: true });
    return held;
  } finally {
    await queue.close();
    await connection.release();
  }
}
