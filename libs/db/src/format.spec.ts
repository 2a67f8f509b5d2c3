import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrm, type MikroORM } from '../test/mikro-orm.ts';
import { formatQuery } from './format.ts';

// The port is held to MikroORM's own formatter, configured as createOrm
// configures it (init connects lazily: this never opens a connection).

const when = new Date('2026-12-02T14:17:07.123Z');

class Money {
  readonly cents: number;
  constructor(cents: number) {
    this.cents = cents;
  }
  valueOf() {
    return this.cents;
  }
  toString() {
    return `${this.cents / 100} EUR`;
  }
}

const cases: [label: string, sql: string, params: unknown[]][] = [
  ['no parameters: the text as written', "SELECT '?' AS a, payload ? 'key'", []],
  ['a string', 'SELECT ?', ['plain']],
  ['a quote, doubled', 'SELECT ?', ["it's"]],
  ['a backslash: the E form, with a leading space', 'SELECT ?', ['a\\b']],
  ['a quote and a backslash', 'SELECT ?', ["it's C:\\path"]],
  ['an empty string', 'SELECT ?', ['']],
  ['unicode', 'SELECT ?', ['żółw 🐢 \u0000x']],
  ['a ? inside a value is not replaced again', 'SELECT ?, ?', ['what?', 'x']],
  ['bigints, as strings', 'SELECT ?, ?', [123456789012345678901234567890n, -5n]],
  ['Dates, in UTC', 'SELECT ?, ?', [when, new Date('1969-07-20T20:17:40Z')]],
  ['a Buffer', 'SELECT ?', [Buffer.from([0, 1, 0xfe, 0xff])]],
  ['an empty Buffer', 'SELECT ?', [Buffer.alloc(0)]],
  ['a Uint8Array', 'SELECT ?', [new Uint8Array([1, 2])]],
  ['an array, for IN (?)', 'SELECT 1 WHERE x IN (?)', [['a', "b'c", 'd\\e']]],
  ['an array of numbers', 'SELECT 1 WHERE x IN (?)', [[1, 2, 3]]],
  ['an array of mixed values', 'SELECT ARRAY[?]', [[null, when, 7n, [1, 'x'], undefined, true]]],
  ['an empty array', 'SELECT 1 WHERE x IN (?)', [[]]],
  ['an array of objects', 'SELECT ?', [[{ a: 1 }]]],
  [
    'an object, as JSON',
    'SELECT ?::jsonb',
    [{ a: 1, b: "it's", c: 'back\\slash', d: [1, 2], e: null, f: when, g: { h: 'i' } }],
  ],
  ['an object without a prototype', 'SELECT ?', [Object.assign(Object.create(null), { a: 1 })]],
  ['an object with a constructor key', 'SELECT ?', [{ constructor: 'x' }]],
  ['an instance of a class', 'SELECT ?, ?', [new Money(1250), new URL('https://example.com/?q=1')]],
  ['a Map', 'SELECT ?', [new Map([[1, 2]])]],
  [
    'numbers',
    'SELECT ?, ?, ?, ?, ?, ?, ?, ?',
    [0, -0, 1.5, -2, 1e21, 0.1, Number.NaN, Number.POSITIVE_INFINITY],
  ],
  ['booleans', 'SELECT ?, ?', [true, false]],
  ['null and undefined', 'SELECT ?, ?', [null, undefined]],
  ['fewer values than ?', 'SELECT ?, ?', [1]],
  ['more values than ?', 'SELECT ?', [1, 2]],
  ['?? identifiers', 'SELECT ?? FROM ??', ['col', 'public.item']],
  ['?? with a quote and two dots', 'SELECT ??, ??', ['we"ird', 'a.b.c']],
  ['?? at the start', '?? IS NULL', ['x']],
  ['? at the start', '? AS x', [1]],
  ['? at the end', 'SELECT 1 LIMIT ?', [5]],
  ['\\? is a literal ?', 'SELECT payload \\? ? FROM t WHERE id = ?', ['key', 1]],
  ['???', 'SELECT ???', [1, 2, 3]],
  ['? then ??', 'SELECT ? ?? ?', [1, 'c', 2]],
  ['adjacent', 'VALUES (?,?),(?,?)', [1, 'a', 2, 'b']],
  ['a cast', 'SELECT ?::text, ?::int[]', ['x', '{1,2}']],
  // Statements from the repo, as written there.
  [
    'matching: IN (?) with ids',
    "SELECT id, '' AS title, '' AS description, headline, skills FROM candidate WHERE id IN (?)",
    [['3b9f0d7e-1c2a-4c5e-9f00-000000000001', '3b9f0d7e-1c2a-4c5e-9f00-000000000002']],
  ],
  [
    'notifications: held intents',
    "SELECT key, tenant_id, recipient, template FROM notification_log\n      WHERE status = 'held' AND key IN (?) ORDER BY created_at LIMIT ?",
    [['k1', 'k2'], 50],
  ],
  [
    'idempotency: set_config',
    "SELECT set_config('idle_in_transaction_session_timeout', ?, true)",
    ['1500ms'],
  ],
  ['payload->>?', 'SELECT payload->>? AS v, coalesce(?, now()) AS at FROM outbox', ['tenantId', null]],
];

describe('formatQuery', () => {
  let orm: MikroORM;

  beforeAll(async () => {
    orm = await createOrm({
      url: 'postgres://postgres@127.0.0.1:5432/hftest_format_never_connected',
      migrations: [],
    });
  });
  afterAll(async () => {
    await orm?.close();
  });

  it.each(cases)('%s: as MikroORM formats it', (_label, sql, params) => {
    expect(formatQuery(sql, params)).toBe(orm.em.getPlatform().formatQuery(sql, params));
  });

  it('writes what the stores rely on', () => {
    expect(formatQuery('SELECT 1 WHERE x IN (?)', [['a', 'b']])).toBe("SELECT 1 WHERE x IN ('a', 'b')");
    expect(formatQuery('SELECT ?', ['a\\b'])).toBe("SELECT  E'a\\\\b'");
    expect(formatQuery('SELECT ?', [when])).toBe("SELECT '2026-12-02T14:17:07.123Z'");
    expect(formatQuery('SELECT ?', [Buffer.from([1, 255])])).toBe("SELECT E'\\\\x01ff'");
    expect(formatQuery('SELECT ?, ?', [undefined, 10n])).toBe("SELECT undefined, '10'");
  });
});
