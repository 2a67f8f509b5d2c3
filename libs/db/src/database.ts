import pg from 'pg';

/** The database name in a postgres:// URL. */
export function databaseName(url: string): string {
  const name = decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
  if (!name) throw new Error(`database URL has no database name: ${redact(url)}`);
  return name;
}

function redact(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

/** Runs `work` on a client of the server's `postgres` maintenance database. */
async function withMaintenanceClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Creates the database named in `url` when it does not exist, by connecting to
 * the server's `postgres` maintenance database. Safe to call concurrently.
 */
export async function ensureDatabase(url: string): Promise<{ created: boolean }> {
  const name = databaseName(url);
  return withMaintenanceClient(url, async (client) => {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount) return { created: false };
    try {
      await client.query(`CREATE DATABASE ${quoted(name)}`);
      return { created: true };
    } catch (error) {
      // 42P04 duplicate_database, 23505: two starters raced on pg_database's unique index.
      const code = (error as { code?: string }).code;
      if (code === '42P04' || code === '23505') return { created: false };
      throw error;
    }
  });
}

/** Drops the database named in `url`, ending its connections (tests, benchmarks). */
export async function dropDatabase(url: string): Promise<void> {
  const name = databaseName(url);
  await withMaintenanceClient(url, (client) =>
    client.query(`DROP DATABASE IF EXISTS ${quoted(name)} WITH (FORCE)`),
  );
}
