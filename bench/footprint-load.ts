// The load phases of `pnpm bench footprint` (issue 31): a process's RSS after
// 1,000 and after 10,000 units of work, for the leak check (≤ 1.2× after
// 10,000 what it was after 1,000) and the footprint under work.
// - jobs api: POST /v1/jobs with a tenant's API key (each one a posting and
//   its outbox row), a few requests in flight at a time;
// - jobs worker: events its outbox relay publishes to SNS (the emulator):
//   copies of the rows the API phase wrote, inserted with fresh event ids
//   a thousand at a time (the insert's NOTIFY wakes the relay), each
//   thousand drained before the next.
import { setTimeout as delay } from 'node:timers/promises';
import { createDatabase } from '@hireflow/db';
import { issueApiKey } from '@hireflow/jobs/api-keys';
import pg from 'pg';
import type { LoadPhase } from './footprint-processes.ts';
import { postingBody } from './jobs-targets.ts';

const IN_FLIGHT = 8;
const DRAIN_TIMEOUT_MS = 10 * 60_000;
const CHUNK = 1_000;

/** The counts of the two phases: 1,000, then 9,000 more (10,000 in all). */
export const PHASES = [
  { name: 'after 1,000', count: 1_000 },
  { name: 'after 10,000', count: 9_000 },
] as const;

/** Issues a tenant's API key in the jobs database (migrated by then). */
export async function benchApiKey(databaseUrl: string): Promise<string> {
  const orm = createDatabase({ url: databaseUrl, migrations: [] });
  try {
    return (await issueApiKey(orm.em.fork(), 'footprint bench', 'bench@example.test')).key;
  } finally {
    await orm.close();
  }
}

/** POST /v1/jobs, `count` times, IN_FLIGHT at a time; statuses other than 202 counted in `others`. */
export function postingPhases(key: string, others: Map<number, number>): LoadPhase[] {
  return PHASES.map(({ name, count }) => ({
    name,
    async run({ port }) {
      let next = 0;
      const one = async () => {
        while (next < count) {
          next++;
          const res = await fetch(`http://127.0.0.1:${port}/v1/jobs`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: postingBody,
          });
          await res.arrayBuffer();
          if (res.status !== 202) others.set(res.status, (others.get(res.status) ?? 0) + 1);
        }
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, one));
    },
  }));
}

/**
 * Events for the jobs worker's relay: rows copied from the ones there, a
 * thousand at a time, each thousand drained (none pending) before the next,
 * so 10,000 is the first phase's work repeated, not a burst ten times its size.
 */
export function relayPhases(databaseUrl: string): LoadPhase[] {
  return PHASES.map(({ name, count }) => ({
    name,
    async run() {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        for (let done = 0; done < count; done += CHUNK) {
          const size = Math.min(CHUNK, count - done);
          const { rowCount } = await client.query(
            `INSERT INTO outbox (event_id, topic, type, payload)
             SELECT gen_random_uuid(), topic, type, payload FROM outbox ORDER BY id LIMIT $1`,
            [size],
          );
          if (rowCount !== size) throw new Error(`only ${rowCount} outbox rows to copy, ${size} wanted`);
          const deadline = Date.now() + DRAIN_TIMEOUT_MS;
          for (;;) {
            const { rows } = await client.query(
              'SELECT count(*)::int AS n FROM outbox WHERE sent_at IS NULL',
            );
            if (rows[0].n === 0) break;
            if (Date.now() > deadline) throw new Error(`${rows[0].n} outbox rows still pending`);
            await delay(250);
          }
        }
      } finally {
        await client.end();
      }
    },
  }));
}

/** Marks every outbox row sent (the worker starts with nothing pending: the phases decide its work). */
export async function settleOutbox(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('UPDATE outbox SET sent_at = now() WHERE sent_at IS NULL');
  } finally {
    await client.end();
  }
}
