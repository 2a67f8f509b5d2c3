import { createDatabase, type Sql } from '../src/sql.ts';

/** A database as the services hold it: a root scope to fork, and a close. */
export interface Connected {
  em: Sql;
  close(): Promise<void>;
}

/**
 * The implementations the shared test bodies run on. Until the swap (issue
 * 31, slice 3) MikroORM was the first, the oracle; the pg implementation is
 * the one left (sql.test.ts still compares its rows and pool with MikroORM's,
 * test/mikro-orm.ts).
 */
export const implementations: { name: string; connect(url: string, poolMax: number): Promise<Connected> }[] =
  [
    {
      name: 'pg',
      connect: async (url, poolMax) => createDatabase({ url, migrations: [], poolMax }),
    },
  ];
