export type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
export { databaseName, dropDatabase, ensureDatabase } from './database.ts';
export { toDate, toDateOrNull } from './dates.ts';
export type { SqlMigration } from './migrations.ts';
export { defineSqlMigration } from './migrations.ts';
export type { OrmOptions } from './orm.ts';
export { createOrm, migrate } from './orm.ts';
export { pingDatabase } from './ping.ts';
export { executePrepared } from './prepared.ts';
