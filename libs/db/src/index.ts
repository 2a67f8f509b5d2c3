export { databaseName, dropDatabase, ensureDatabase } from './database.ts';
export { toDate, toDateOrNull } from './dates.ts';
export type { SqlMigration } from './migrations.ts';
export { defineSqlMigration } from './migrations.ts';
export { pingDatabase } from './ping.ts';
export { executePrepared } from './prepared.ts';
export { migrateDatabase } from './runner.ts';
export type { Database, Sql } from './sql.ts';
export { createDatabase, isPgScope, poolOf, transactionScopeOn } from './sql.ts';
