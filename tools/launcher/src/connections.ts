import pg from 'pg';

// Each service process opens up to DATABASE_POOL_MAX Postgres connections
// plus one for the outbox's LISTEN. A worker pool multiplies that: 4 API
// processes and up to 20 workers at 11 each is over twice the default
// max_connections (100). So locally each pooled process gets a smaller pool,
// and each service's maximum is capped to what the server can hold.

/**
 * The pool of one pooled process. Three: a handler or job holds one
 * connection at a time (the idempotency bookkeeping commits on its own,
 * between the work's statements), so more concurrency than connections
 * queues for them rather than deadlocking.
 */
export const LOCAL_POOL_MAX = 3;
/** Its pool and the outbox relay's LISTEN client. */
const PER_PROCESS = LOCAL_POOL_MAX + 1;
/** Left for everything else: psql, `pnpm cli`, tests on the same server. */
const RESERVED = 10;

/** The server's max_connections and the connections open now (others', before ours). */
export async function postgresConnections(postgresUrl: string): Promise<{ max: number; inUse: number }> {
  const client = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    const { rows } = await client.query<{ max: string; in_use: string }>(
      "SELECT current_setting('max_connections') AS max, (SELECT count(*) FROM pg_stat_activity) AS in_use",
    );
    return { max: Number(rows[0]!.max), inUse: Number(rows[0]!.in_use) };
  } finally {
    await client.end();
  }
}

/**
 * Each service's maximum worker count, within its policy, so that every API
 * process and every pool at its maximum fit the connections left: the
 * minimums always run; what the budget allows beyond them is shared out one
 * worker at a time, round the services. `capped` names the services held
 * below their policy's maximum.
 */
export function capWorkers(
  bounds: Record<string, { minWorkers: number; maxWorkers: number }>,
  connections: { max: number; inUse: number },
): { maxWorkers: Record<string, number>; capped: string[] } {
  const services = Object.keys(bounds);
  const processes = Math.floor((connections.max - connections.inUse - RESERVED) / PER_PROCESS);
  const maxWorkers = Object.fromEntries(services.map((s) => [s, bounds[s]!.minWorkers]));
  let spare = processes - services.length - services.reduce((sum, s) => sum + bounds[s]!.minWorkers, 0);
  while (spare > 0) {
    const growing = services.filter((s) => maxWorkers[s]! < bounds[s]!.maxWorkers);
    if (growing.length === 0) break;
    for (const s of growing) {
      if (spare === 0) break;
      maxWorkers[s]! += 1;
      spare -= 1;
    }
  }
  return { maxWorkers, capped: services.filter((s) => maxWorkers[s]! < bounds[s]!.maxWorkers) };
}
