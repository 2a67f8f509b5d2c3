import { createTestDatabase, type TestDatabase } from '@hireflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrm, type EntityManager, executePrepared, type MikroORM } from '../src/index.ts';

describe('executePrepared', () => {
  let db: TestDatabase;
  let orm: MikroORM;

  beforeAll(async () => {
    db = await createTestDatabase('prepared');
    orm = await createOrm({ url: db.url, migrations: [], poolMax: 2 });
    await orm.em.fork().execute('CREATE TABLE item (id text PRIMARY KEY, doc jsonb NOT NULL)');
  });
  afterAll(async () => {
    await orm?.close();
    await db?.drop();
  });

  const insert = (em: EntityManager, id: string) =>
    executePrepared<{ id: string }>(em, 'INSERT INTO item (id, doc) SELECT ?::text, ?::jsonb RETURNING id', [
      id,
      JSON.stringify({ id }),
    ]);
  const prepared = (em: EntityManager) =>
    em.execute<{ statement: string }[]>(
      "SELECT statement FROM pg_prepared_statements WHERE statement LIKE 'INSERT INTO item%'",
    );

  it("inside a transaction runs on the transaction's own connection, as a named prepared statement", async () => {
    await orm.em.fork().transactional(async (tx) => {
      expect(await insert(tx, 'a')).toEqual([{ id: 'a' }]);
      expect(await insert(tx, 'b')).toEqual([{ id: 'b' }]);
      // Prepared on this connection (the session's own list), and its writes are this transaction's.
      expect(await prepared(tx)).toHaveLength(1);
      expect(await executePrepared(tx, 'SELECT id FROM item WHERE id = ?::text', ['a'])).toEqual([
        { id: 'a' },
      ]);
    });
    expect(await orm.em.fork().execute('SELECT id FROM item ORDER BY id')).toEqual([
      { id: 'a' },
      { id: 'b' },
    ]);
  });

  it('rolls back with the transaction, and its error fails the transaction', async () => {
    const failing = orm.em.fork().transactional(async (tx) => {
      await insert(tx, 'c');
      await insert(tx, 'a'); // duplicate key
    });
    await expect(failing).rejects.toMatchObject({ code: '23505' });
    expect(await orm.em.fork().execute("SELECT id FROM item WHERE id = 'c'")).toEqual([]);
  });

  it('outside a transaction autocommits on the pool', async () => {
    expect(await insert(orm.em.fork(), 'd')).toEqual([{ id: 'd' }]);
    expect(await orm.em.fork().execute("SELECT id FROM item WHERE id = 'd'")).toEqual([{ id: 'd' }]);
  });
});
