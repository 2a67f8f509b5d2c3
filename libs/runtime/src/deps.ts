import type { SNSClient } from '@aws-sdk/client-sns';
import { GetQueueUrlCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { createOrm, ensureDatabase, type MikroORM, migrate, type SqlMigration } from '@hireflow/db';
import {
  awsSettings,
  createSnsClient,
  createSqsClient,
  type ServiceName,
  serviceChannels,
} from '@hireflow/infra';
import type { EntitySchema } from '@mikro-orm/core';
import { Redis } from 'ioredis';
import type { ReadinessCheck } from './health.ts';
import { closeRedis } from './redis.ts';
import type { ServiceConfig } from './service-config.ts';

/** The connections a service's API and worker roles share. */
export interface ServiceDeps {
  service: ServiceName;
  orm: MikroORM;
  redis: Redis;
  sqs: SQSClient;
  sns: SNSClient;
  /** Full names of the service's inbox queue and publish topic (prefix applied). */
  names: { inbox?: string | undefined; topic?: string | undefined };
  close(): Promise<void>;
}

export interface ConnectOptions {
  service: ServiceName;
  // biome-ignore lint/suspicious/noExplicitAny: entity schemas of any shape
  entities: EntitySchema<any, any>[];
  migrations: SqlMigration[];
  env: Record<string, string | undefined>;
}

/** Creates the service's database if missing, migrates it, and opens Redis and the AWS clients. */
export async function connectDeps(config: ServiceConfig, options: ConnectOptions): Promise<ServiceDeps> {
  await ensureDatabase(config.DATABASE_URL);
  const orm = await createOrm({
    url: config.DATABASE_URL,
    entities: options.entities,
    migrations: options.migrations,
  });
  try {
    await migrate(orm);
  } catch (error) {
    await orm.close();
    throw error;
  }
  const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: null, lazyConnect: true });
  await redis.connect().catch(async (error: Error) => {
    redis.disconnect();
    await orm.close();
    throw new Error(`Redis at ${config.REDIS_URL} does not answer: ${error.message}`);
  });
  const settings = awsSettings(config, options.env);
  const sqs = createSqsClient(settings);
  const sns = createSnsClient(settings);
  const channels = serviceChannels(options.service);
  const prefix = config.HIREFLOW_TOPOLOGY_PREFIX;
  return {
    service: options.service,
    orm,
    redis,
    sqs,
    sns,
    names: {
      inbox: channels.inbox && prefix + channels.inbox,
      topic: channels.topic && prefix + channels.topic,
    },
    close: async () => {
      sqs.destroy();
      sns.destroy();
      await closeRedis(redis);
      await orm.close();
    },
  };
}

/** Postgres, Redis and the service's SQS inbox must answer for /health/ready. */
export function readinessChecks(deps: ServiceDeps): Record<string, ReadinessCheck> {
  return {
    postgres: async () => {
      await deps.orm.em.fork().execute('SELECT 1');
    },
    redis: async () => {
      await deps.redis.ping();
    },
    sqs: async () => {
      if (!deps.names.inbox) return;
      await deps.sqs.send(new GetQueueUrlCommand({ QueueName: deps.names.inbox }));
    },
  };
}
