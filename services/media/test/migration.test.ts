import { randomUUID } from 'node:crypto';
import { createDatabase, migrateDatabase, type Sql } from '@hireflow/db';
import { createTestDatabase } from '@hireflow/testing';
import { describe, expect, it } from 'vitest';
import { migrations } from '../src/db/schema.ts';
import { expirableUploads } from '../src/modules/uploads/store.ts';

// The upgrade that brings the owners projection (1003-media-known-owners)
// removes nothing: uploads that named an owner before it stay attached, as
// does one that an API process of the previous release inserts after it (a
// rolling deploy); uploads without an owner expire as before. Real Postgres.
describe('the known-owners migration', () => {
  it('keeps existing (and old-code) owned uploads attached; ownerless ones still expire', async () => {
    const db = await createTestDatabase('media-owners-migration');
    const before = migrations.filter((m) => m.name < '1003');
    const insertOld = (em: Sql, id: string, tenantId: string, ownerId: string | null) =>
      em.execute(
        `INSERT INTO upload (id, tenant_id, status, owner_type, owner_id, content_type, size_bytes, width, height, created_at)
         VALUES (?, ?, 'ready', ?, ?, 'image/png', 10, 1, 1, now() - interval '2 hours')`,
        [id, tenantId, ownerId ? 'job' : null, ownerId],
      );
    const tenantId = randomUUID();
    const [owned, ownerless, ownedDuringDeploy] = [randomUUID(), randomUUID(), randomUUID()];
    const orm = createDatabase({ url: db.url, migrations: before });
    try {
      await migrateDatabase(orm);
      const em = orm.em.fork();
      await insertOld(em, owned, tenantId, randomUUID());
      await insertOld(em, ownerless, tenantId, null);
      await orm.close();

      const upgraded = createDatabase({ url: db.url, migrations });
      try {
        expect(await migrateDatabase(upgraded)).toEqual(['1003-media-known-owners']);
        const em2 = upgraded.em.fork();
        // The previous release's INSERT, which knows nothing of owner_pending.
        await insertOld(em2, ownedDuringDeploy, tenantId, randomUUID());
        const rows = await em2.execute<{ id: string; owner_pending: boolean }[]>(
          'SELECT id, owner_pending FROM upload WHERE id IN (?)',
          [[owned, ownerless, ownedDuringDeploy]],
        );
        expect(rows.every((r) => r.owner_pending === false)).toBe(true);
        const expiring = await expirableUploads(em2, 3_600_000, 100);
        expect(expiring.map((r) => r.id)).toEqual([ownerless]);
      } finally {
        await upgraded.close();
      }
    } finally {
      await orm.close().catch(() => undefined);
      await db.drop();
    }
  });
});
