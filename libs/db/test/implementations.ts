import { createOrm } from '../src/orm.ts';
import { createDatabase, type Sql } from '../src/sql.ts';

/** A database as the services hold it: a root scope to fork, and a close. */
export interface Connected {
  em: Sql;
  close(): Promise<void>;
}

/**
 * Both implementations behind the same face, so that one test body checks
 * the pg one against MikroORM, the oracle. MikroORM's EntityManager has the
 * methods `Sql` names (it is what `Sql` was cut from); only the types differ.
 */
export const implementations: { name: string; connect(url: string, poolMax: number): Promise<Connected> }[] =
  [
    {
      name: 'MikroORM',
      connect: async (url, poolMax) => {
        const orm = await createOrm({ url, migrations: [], poolMax });
        return { em: orm.em as unknown as Sql, close: () => orm.close() };
      },
    },
    {
      name: 'pg',
      connect: async (url, poolMax) => createDatabase({ url, migrations: [], poolMax }),
    },
  ];
