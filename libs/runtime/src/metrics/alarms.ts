import type { Redis } from 'ioredis';
import type { Logger } from '../logger.ts';

// The state of each dead-letter set, in Redis, swapped atomically: of all the
// processes that look, only the one that changes it hears of the change.
const SWAP_STATE = `
local old = redis.call('GET', KEYS[1])
redis.call('SET', KEYS[1], ARGV[1])
if old == ARGV[1] then return 0 end
if (not old) and ARGV[1] == 'empty' then return 0 end
return 1`;

export interface DeadLetterAlarms {
  /** Reports a dead-letter set's depth; alerts when it goes from empty to not, and back. */
  observe(kind: 'sqs' | 'bullmq', queue: string, depth: number): Promise<void>;
}

/**
 * Any message in a DLQ is a bug report (docs/design.md): when a DLQ or a
 * BullMQ dead-letter set goes from empty to non-empty, one error-level log
 * line and one alert to the webhook (if configured), once per transition
 * across every process of every service; again ("resolved") when it is emptied.
 */
export function deadLetterAlarms(options: {
  redis: Redis;
  prefix: string;
  service: string;
  webhookUrl?: string | undefined;
  log: Logger;
}): DeadLetterAlarms {
  return {
    async observe(kind, queue, depth) {
      const state = depth > 0 ? 'firing' : 'empty';
      const key = `${options.prefix}:dead-letter-alarm:${kind}:${queue}`;
      const changed = await options.redis.eval(SWAP_STATE, 1, key, state);
      if (changed !== 1) return;
      const status = state === 'firing' ? 'firing' : 'resolved';
      const alert = { status, service: options.service, queue, kind, depth, at: new Date().toISOString() };
      if (status === 'firing') {
        options.log.error(alert, `dead letters in ${kind} ${queue}: list and redrive them with pnpm dlq`);
      } else {
        options.log.info(alert, `dead letters of ${kind} ${queue} resolved`);
      }
      if (!options.webhookUrl) return;
      await fetch(options.webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(alert),
        signal: AbortSignal.timeout(5000),
      }).then(
        (res) => {
          if (!res.ok) options.log.warn({ status: res.status }, 'alert webhook refused the alert');
        },
        (error: unknown) => options.log.warn({ err: error }, 'alert webhook unreachable'),
      );
    },
  };
}
