import { createRequire } from 'node:module';
import type { SNSClient } from '@aws-sdk/client-sns';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { type ConsumerName, serviceChannels } from '@hireflow/contracts';
import {
  createDatabase,
  type Database,
  ensureDatabase,
  migrateDatabase,
  type SqlMigration,
} from '@hireflow/db';
import type * as IORedis from 'ioredis';
import { type AwsSettings, awsSettings, createSnsClient, createSqsClient } from './aws.ts';
import type { Logger } from './logger.ts';
import { type QueueHandles, queueHandles } from './metrics/queue-handles.ts';
import { createMetrics, type ServiceMetrics } from './metrics/registry.ts';
import { closeRedis } from './redis.ts';
import type { ServiceConfig } from './service-config.ts';

// `require`d, not imported, for the telemetry preload's ioredis instrumentation
// (as in @hireflow/messaging's bullmq/connection.ts).
const { Redis } = createRequire(import.meta.url)('ioredis') as typeof IORedis;
type Redis = IORedis.Redis;

/** The connections a service's API and worker roles share, and its one logger. */
export interface ServiceDeps {
  /** One of the services, or a subscriber service (docs/subscribing.md). */
  service: ConsumerName;
  log: Logger;
  orm: Database;
  redis: Redis;
  sqs: SQSClient;
  sns: SNSClient;
  aws: AwsSettings;
  /** The process's metrics (the admin port's `/metrics`). */
  metrics: ServiceMetrics;
  /**
   * The service's BullMQ queues, to observe them (the queue sampler, Bull
   * Board): their handles are made on first use, not at start.
   */
  queues: QueueHandles;
  /** Full names of the service's inbox queue (and its bulk lane's), publish topic and bucket (prefix applied). */
  names: {
    inbox?: string | undefined;
    bulkInbox?: string | undefined;
    topic?: string | undefined;
    bucket?: string | undefined;
  };
  close(): Promise<void>;
}

export interface ConnectOptions {
  service: ConsumerName;
  migrations: SqlMigration[];
  /** Only to know whether AWS credentials are set (dummy ones against the emulator otherwise). */
  env: Record<string, string | undefined>;
  log: Logger;
  /** The service's BullMQ queue names, observed by metrics and Bull Board. */
  queues?: string[];
}

/**
 * Creates the service's database if missing, migrates it, and opens Redis and
 * the SQS and SNS clients (media opens its S3 client itself: `@hireflow/runtime/s3`).
 */
export async function connectDeps(config: ServiceConfig, options: ConnectOptions): Promise<ServiceDeps> {
  await ensureDatabase(config.DATABASE_URL);
  const orm = createDatabase({
    url: config.DATABASE_URL,
    poolMax: config.DATABASE_POOL_MAX,
    migrations: options.migrations,
  });
  try {
    await migrateDatabase(orm);
  } catch (error) {
    await orm.close();
    throw error;
  }
  const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: null, lazyConnect: true });
  // ioredis reconnects by itself; without a listener each failed attempt is an unhandled error event.
  redis.on('error', (error: Error) => options.log.warn({ err: error }, 'Redis connection error'));
  await redis.connect().catch(async (error: Error) => {
    redis.disconnect();
    await orm.close();
    throw new Error(`Redis at ${config.REDIS_URL} does not answer: ${error.message}`);
  });
  const aws = awsSettings(config, options.env);
  const sqs = createSqsClient(aws);
  const sns = createSnsClient(aws);
  const channels = serviceChannels(options.service);
  const prefix = config.HIREFLOW_TOPOLOGY_PREFIX;
  const metrics = createMetrics(options.service);
  const queues = queueHandles({
    names: options.queues ?? [],
    redis,
    prefix: config.REDIS_PREFIX,
    log: options.log,
  });
  return {
    service: options.service,
    log: options.log,
    metrics,
    queues,
    orm,
    redis,
    sqs,
    sns,
    aws,
    names: {
      inbox: channels.inbox && prefix + channels.inbox,
      bulkInbox: channels.bulkInbox && prefix + channels.bulkInbox,
      topic: channels.topic && prefix + channels.topic,
      bucket: channels.bucket && prefix + channels.bucket,
    },
    close: async () => {
      metrics.close();
      await queues.close();
      sqs.destroy();
      sns.destroy();
      await closeRedis(redis);
      await orm.close();
    },
  };
}
