import { Redis } from 'ioredis';
import pg from 'pg';

/** Checks that Postgres and Redis answer (both at once); on failure says exactly how to start them. */
export async function preflight(postgresUrl: string, redisUrl: string): Promise<string[]> {
  const problems = await Promise.all([postgresProblem(postgresUrl), redisProblem(redisUrl)]);
  return problems.filter((p): p is string => p !== undefined);
}

async function postgresProblem(postgresUrl: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return (
      `Postgres does not answer at ${postgresUrl} (${(error as Error).message}).\n` +
      '    Start it:  pg_ctlcluster --skip-systemctl-redirect 15 main start   (or: sudo systemctl start postgresql)'
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function redisProblem(redisUrl: string): Promise<string | undefined> {
  const redis = new Redis(redisUrl, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 3000,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
    return undefined;
  } catch (error) {
    return (
      `Redis does not answer at ${redisUrl} (${(error as Error).message}).\n` +
      '    Start it:  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no'
    );
  } finally {
    redis.disconnect();
  }
}
