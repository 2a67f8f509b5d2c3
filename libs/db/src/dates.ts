import pg from 'pg';

// Rows read with `em.execute` carry date/time columns as the text Postgres
// sends (pool.ts, MikroORM's type parsers). Where a store hands a Date on,
// it parses that text as MikroORM's entity hydration did
// (PostgreSqlPlatform.parseDate): an ISO string (`T` at index 10) with
// `new Date`, Postgres' own form with postgres-date, pg's default parser of
// timestamptz, so a row read as SQL gives the Date an entity gave.

const parseTimestamptz = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text') as (
  text: string,
) => Date;

/** A timestamptz column's value (text as read, or a Date) as a Date. */
export function toDate(value: string | Date): Date {
  if (value instanceof Date) return value;
  return value.charAt(10) === 'T' ? new Date(value) : parseTimestamptz(value);
}

/** As `toDate`, null kept. */
export function toDateOrNull(value: string | Date | null): Date | null {
  return value === null ? null : toDate(value);
}
