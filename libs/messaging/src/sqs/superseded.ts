// One failure chain per message (docs/messaging.md, "One chain per message"):
// a failed or waiting message is re-sent as a copy, then the received one is
// deleted. Should that delete be lost (the process dies between the two, the
// call fails), the original comes back beside its copy and would start a
// second chain from failed-count 0: up to twice the attempts, two dead
// letters. So, once the copy (or the dead letter) is sent, the original's
// SQS message id is marked superseded; a message that comes back marked is
// deleted without running its handler. Its copy carries the chain on.

import type { Redis } from 'ioredis';
import { withTimeout } from '../timeout.ts';

/** Where the consumer notes which received messages a sent copy supersedes. */
export interface SupersededMarks {
  /** Notes that this SQS message was re-sent or dead-lettered (its copy is on its way). */
  mark(queueName: string, messageId: string): Promise<void>;
  isMarked(queueName: string, messageId: string): Promise<boolean>;
}

/** Longer than SQS keeps any message (14 days at most): a mark outlives the original it names. */
export const SUPERSEDED_MARK_TTL_SECONDS = 14 * 24 * 3600;

/**
 * How long a mark's read or write may wait for Redis: with Redis away,
 * ioredis would queue the command until it is back and hold the message's
 * settling (the consumer then goes on without the mark).
 */
export const SUPERSEDED_MARK_TIMEOUT_MS = 2000;

/** Marks in Redis, one small key per re-sent message, under the service's prefix. */
export function redisSupersededMarks(redis: Redis, prefix: string): SupersededMarks {
  const key = (queueName: string, messageId: string) => `${prefix}:sqs-superseded:${queueName}:${messageId}`;
  const bounded = <T>(command: Promise<T>, what: string) => {
    command.catch(() => undefined);
    return withTimeout(command, SUPERSEDED_MARK_TIMEOUT_MS, what);
  };
  return {
    async mark(queueName, messageId) {
      await bounded(
        redis.set(key(queueName, messageId), '1', 'EX', SUPERSEDED_MARK_TTL_SECONDS),
        'marking a message superseded',
      );
    },
    async isMarked(queueName, messageId) {
      return (await bounded(redis.exists(key(queueName, messageId)), 'reading a superseded mark')) === 1;
    },
  };
}
