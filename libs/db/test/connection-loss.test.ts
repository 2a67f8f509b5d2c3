import { createTestDatabase, type TestDatabase } from '@hireflow/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Connected, implementations } from './implementations.ts';

// Found by the chaos soak (docs/chaos.md): Postgres ends a connection with a
// FATAL error (restart, failover, pg_terminate_backend) and closes it. The
// query in flight fails at once, and the pool took the connection back as
// healthy before its socket had closed: the next caller waiting for a
// connection got the dead one and failed too, with work that never touched it.
// The same checks hold MikroORM and the pg implementation (issue 31).
describe.each(implementations)('$name: a pooled connection that dies while checked out', ({ connect }) => {
  let db: TestDatabase;
  let orm: Connected;
  let admin: pg.Client;

  beforeAll(async () => {
    db = await createTestDatabase('conn-loss');
    orm = await connect(db.url, 1);
    admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await orm?.close();
    await db?.drop();
  });

  it('is not handed to the next caller', async () => {
    for (let round = 0; round < 5; round++) {
      const em = orm.em.fork();
      const [row] = await em.execute<{ pid: number }[]>('SELECT pg_backend_pid() AS pid');
      const pid = row!.pid;
      const holder = em.execute('SELECT pg_sleep(30)');
      const holderFailed = expect(holder).rejects.toThrow(/terminat/);
      // Queued behind the holder: the pool has one connection.
      const next = orm.em.fork().execute<{ ok: number }[]>('SELECT 1 AS ok');
      for (let i = 0; i < 200; i++) {
        const { rows } = await admin.query(
          "SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND query LIKE 'SELECT pg_sleep%'",
          [pid],
        );
        if (rows.length > 0) break;
      }
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      await holderFailed;
      await expect(next).resolves.toEqual([{ ok: 1 }]);
    }
  });

  it('is given back when the transaction on it cannot commit or roll back', async () => {
    // Kysely releases a transaction's connection only after COMMIT or
    // ROLLBACK succeeds: on a dead connection both fail, and the pool kept it
    // checked out for good. A pool of one then made every later caller wait
    // for ever (the soak saw a worker stop consuming after a Postgres cut).
    const em = orm.em.fork();
    const commit = em.transactional(async (tx) => {
      const [row] = await tx.execute<{ pid: number }[]>('SELECT pg_backend_pid() AS pid');
      await admin.query('SELECT pg_terminate_backend($1)', [row!.pid]);
      for (let i = 0; i < 200; i++) {
        const { rows } = await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [row!.pid]);
        if (rows.length === 0) break;
      }
    });
    await expect(commit).rejects.toThrow();
    const next = orm.em.fork().execute<{ ok: number }[]>('SELECT 1 AS ok');
    const outcome = await Promise.race([
      next,
      new Promise((resolve) => setTimeout(() => resolve('still waiting for a connection'), 5_000)),
    ]);
    expect(outcome).toEqual([{ ok: 1 }]);
  });
});
