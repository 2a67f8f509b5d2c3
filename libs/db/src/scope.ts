import type { EntityManager } from '@mikro-orm/postgresql';
import type { Sql } from './sql.ts';

// Until every service is on the pg implementation (issue 31, step 3), code
// shared by both (idempotency) takes either scope. MikroORM's EntityManager
// has the methods `Sql` names (it is what `Sql` was cut from), and they
// behave alike where the code relies on them (test/sql.test.ts runs the same
// checks on both); only the types differ. `executePrepared` tells the two
// apart at run time.

/** MikroORM's EntityManager or a scope of the pg implementation. */
export type Scope = EntityManager | Sql;

/** `scope` typed as a `Sql`: an EntityManager stays one, and `executePrepared` still treats it as one. */
export function asSql(scope: Scope): Sql {
  return scope as Sql;
}
