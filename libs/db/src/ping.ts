import type { Database } from './sql.ts';

/** One round trip to the database (readiness checks). */
export async function pingDatabase(db: Database): Promise<void> {
  await db.em.fork().execute('SELECT 1');
}
