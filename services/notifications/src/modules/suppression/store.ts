import type { Sql } from '@hireflow/db';

// The suppression list: addresses that asked for no more email. Every email
// checks it when it is decided (admissionCheck) and before it is sent (findSendable).

export async function suppress(em: Sql, address: string, reason: string): Promise<void> {
  await em.execute(
    'INSERT INTO suppression (address, reason) VALUES (lower(?), ?) ON CONFLICT (address) DO NOTHING',
    [address, reason],
  );
}
