import type { EntityManager } from '@hireflow/db';

// The suppression list: addresses that asked for no more email. Every email
// checks it before it is sent.

export async function isSuppressed(em: EntityManager, address: string): Promise<boolean> {
  const rows = await em.execute<{ one: number }[]>(
    'SELECT 1 AS one FROM suppression WHERE address = lower(?)',
    [address],
  );
  return rows.length > 0;
}

export async function suppress(em: EntityManager, address: string, reason: string): Promise<void> {
  await em.execute(
    'INSERT INTO suppression (address, reason) VALUES (lower(?), ?) ON CONFLICT (address) DO NOTHING',
    [address, reason],
  );
}
