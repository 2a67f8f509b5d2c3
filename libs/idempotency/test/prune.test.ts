import { uniqueName, waitFor } from '@hireflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RETENTION_MS, idempotent, pruneExpired } from '../src/index.ts';
import { backends, gate, openTestOrm, type TestOrm } from './orm.ts';

describe.each(backends)('$name: pruneExpired', ({ name }) => {
  let db: TestOrm;
  beforeAll(async () => {
    db = await openTestOrm('idem-prune', 10, name);
  });
  afterAll(() => db.close());

  const keys = async () =>
    (await db.orm.em.fork().execute<{ key: string }[]>('SELECT key FROM processed_message ORDER BY key')).map(
      (row) => row.key,
    );
  const age = (key: string, column: 'expires_at' | 'lease_expires_at') =>
    db.orm.em
      .fork()
      .execute(`UPDATE processed_message SET ${column} = now() - interval '1 second' WHERE key = ?`, [key]);

  it('keeps keys longer than SQS keeps a message (14 days)', () => {
    expect(DEFAULT_RETENTION_MS).toBeGreaterThan(14 * 24 * 60 * 60 * 1000);
  });

  it('deletes expired completed keys and abandoned claims in batches, and keeps live keys and running claims', async () => {
    const prefix = uniqueName('prune');
    const expired = Array.from({ length: 5 }, (_, i) => `${prefix}:expired-${i}`);
    const live = Array.from({ length: 3 }, (_, i) => `${prefix}:live-${i}`);
    for (const key of [...expired, ...live]) await idempotent(db.target, { key }, async () => key);
    for (const key of expired) await age(key, 'expires_at');

    // a claim still running, past its retention but not its lease: kept
    const holding = gate();
    let entered = false;
    const running = idempotent(db.target, { key: `${prefix}:running` }, async () => {
      entered = true;
      await holding.opened;
      return 'running';
    });
    await waitFor(() => entered);
    await age(`${prefix}:running`, 'expires_at');

    // a claim whose holder died long ago: lease and retention both past
    const abandoned = `${prefix}:abandoned`;
    await db.orm.em.fork().execute(
      `INSERT INTO processed_message (key, status, fencing_token, lease_expires_at, expires_at)
       VALUES (?, 'in_progress', nextval('processed_message_fencing_token_seq'), now() - interval '1 day', now() - interval '1 second')`,
      [abandoned],
    );

    expect(await pruneExpired(db.target, { batchSize: 2 })).toBe(6);
    expect(await keys()).toEqual([...live, `${prefix}:running`].sort());
    expect(await pruneExpired(db.target.em.fork(), { batchSize: 2 })).toBe(0);

    holding.open();
    await running;
    expect(await keys()).toContain(`${prefix}:running`);
  });

  it('rejects a batch size that is not a positive integer', async () => {
    await expect(pruneExpired(db.target, { batchSize: 0 })).rejects.toThrow(TypeError);
  });
});
