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

/**
 * Creates the database named in `url` when it does not exist, by connecting to
 * the server's `postgres` maintenance database. Safe to call concurrently.
 */
export async function ensureDatabase(url: string): Promise<{ created: boolean }> {
  const name = databaseName(url);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount) return { created: false };
    try {
      await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
      return { created: true };
    } catch (error) {
      // 42P04 duplicate_database, 23505: two starters raced on pg_database's unique index.
      const code = (error as { code?: string }).code;
      if (code === '42P04' || code === '23505') return { created: false };
      throw error;
    }
  } finally {
    await client.end();
  }
}

/** Drops the database named in `url`, ending its connections (tests, benchmarks). */
export async function dropDatabase(url: string): Promise<void> {
  const name = databaseName(url);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name.replaceAll('"', '""')}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
