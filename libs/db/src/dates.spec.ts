import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrm, type MikroORM } from '../test/mikro-orm.ts';
import { toDate, toDateOrNull } from './dates.ts';

// Held to MikroORM's own hydration of a datetime property (the platform's
// parseDate), configured as the services configured it until the swap (test/mikro-orm.ts) (never connects).

const texts = [
  // As Postgres prints timestamptz (UTC session): microseconds, a zone of hours.
  '2026-12-02 14:17:07.123456+00',
  '2026-12-02 14:17:07+00',
  '2026-12-02 16:17:07.5+02',
  '2026-12-02 09:47:07.123-04:30',
  '0001-01-01 00:00:00+00',
  '9999-12-31 23:59:59.999999+00',
  // ISO, as a value written from JS and read back as text.
  '2026-12-02T14:17:07.123Z',
];

describe('toDate', () => {
  let orm: MikroORM;

  beforeAll(async () => {
    orm = await createOrm({
      url: 'postgres://postgres@127.0.0.1:5432/hftest_dates_never_connected',
      migrations: [],
    });
  });
  afterAll(async () => {
    await orm?.close();
  });

  it.each(texts)('%s: the Date MikroORM hydrates', (text) => {
    const hydrated = orm.em.getPlatform().parseDate(text) as Date;
    expect(hydrated).toBeInstanceOf(Date);
    expect(toDate(text).getTime()).toBe(hydrated.getTime());
  });

  it('keeps a Date and a null', () => {
    const when = new Date('2026-12-02T14:17:07.123Z');
    expect(toDate(when)).toBe(when);
    expect(toDateOrNull(null)).toBeNull();
    expect(toDateOrNull('2026-12-02 14:17:07.123+00')?.toISOString()).toBe('2026-12-02T14:17:07.123Z');
  });
});
