import { GetQueueUrlCommand } from '@aws-sdk/client-sqs';
import { pingDatabase } from '@hireflow/db';
import type { ServiceDeps } from './deps.ts';
import type { ReadinessCheck } from './health.ts';

/** Postgres, Redis and the service's SQS inbox must answer for /health/ready. */
export function readinessChecks(deps: ServiceDeps): Record<string, ReadinessCheck> {
  return {
    postgres: () => pingDatabase(deps.orm),
    redis: async () => {
      await deps.redis.ping();
    },
    sqs: async () => {
      if (!deps.names.inbox) return;
      await deps.sqs.send(new GetQueueUrlCommand({ QueueName: deps.names.inbox }));
    },
  };
}
