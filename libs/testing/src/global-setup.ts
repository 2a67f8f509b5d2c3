import { randomUUID } from 'node:crypto';
import { startEmulator } from '@hireflow/emulator';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { reapLeftovers, TEST_RUN_VARIABLE } from './processes.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    awsEndpoint: string;
  }
}

/**
 * One SNS/SQS emulator on a free loopback port for the whole run (each test
 * provisions its own prefixed topology on it), after checking that Postgres
 * and Redis answer, with a message that says how to start them if not.
 *
 * Every process of the run inherits a mark of the run (`HIREFLOW_TEST_RUN`):
 * at the end, whatever still carries it (a service whose test or launcher
 * died without stopping it) is killed and named, so that no run leaves
 * processes behind on the machine.
 */
export default async function setup(project: TestProject) {
  await checkPostgres();
  await checkRedis();
  const run = randomUUID();
  process.env[TEST_RUN_VARIABLE] = run;
  const emulator = await startEmulator({ region: 'eu-west-1' });
  project.provide('awsEndpoint', emulator.endpoint);
  return async () => {
    await emulator.stop();
    const leftovers = reapLeftovers(run);
    if (leftovers.length > 0) {
      console.warn(
        `global teardown: killed ${leftovers.length} process(es) the run left running:\n${leftovers.map((p) => `  ${p.pid} ${p.command}`).join('\n')}`,
      );
    }
  };
}

async function checkPostgres() {
  const client = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  try {
    await client.connect();
    await client.end();
  } catch (error) {
    throw new Error(
      `Postgres does not answer on 127.0.0.1:5432 (${(error as Error).message}). Start it: pg_ctlcluster --skip-systemctl-redirect 15 main start`,
    );
  }
}

async function checkRedis() {
  const redis = new Redis('redis://127.0.0.1:6379', {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    throw new Error(
      `Redis does not answer on 127.0.0.1:6379 (${(error as Error).message}). Start it: redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no`,
    );
  } finally {
    redis.disconnect();
  }
}
