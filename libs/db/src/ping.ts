import type { MikroORM } from '@mikro-orm/postgresql';

/** One round trip to the database (readiness checks). */
export async function pingDatabase(orm: MikroORM): Promise<void> {
  await orm.em.fork().execute('SELECT 1');
}
