// The values the fuzzer (fuzz.ts) draws from: a seeded source, strings and
// JSON values that break parsers and validators, and valid values that get
// a request past one field to the next.

export type Json = unknown;
export type Schema = Record<string, unknown>;

/** mulberry32: a seeded uniform source in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export const NASTY_STRINGS = [
  '',
  ' ',
  'a\u0000b',
  '\ud800',
  '\u202e\u0645\u0631\u062d\u0628\u0627',
  '<script>alert(1)</script>',
  "' OR '1'='1",
  '../../etc/passwd',
  '%00%2e%2e',
  '{"$gt":""}',
  'x'.repeat(70_000),
  '9'.repeat(400),
  'https://evil.example/login',
  'null',
  '__proto__',
  '😀'.repeat(100),
];
export const NASTY_VALUES: Json[] = [
  null,
  true,
  -1,
  0,
  1e308,
  -0.5,
  Number.MAX_SAFE_INTEGER + 2,
  [],
  {},
  [null],
  { __proto__: { admin: true } },
  { constructor: { prototype: { admin: true } } },
  JSON.parse('{"__proto__":{"polluted":true}}'),
  Array.from({ length: 200 }, () => 'x'),
  deep(60),
];

function deep(levels: number): Json {
  let value: Json = 'bottom';
  for (let i = 0; i < levels; i++) value = { nested: value };
  return value;
}

/** Percent-encodes, and sends what cannot be encoded (a lone surrogate) as invalid UTF-8 bytes. */
export function encode(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ED%A0%80';
  }
}

export const pick = <T>(random: () => number, list: readonly T[]): T =>
  list[Math.floor(random() * list.length)]!;

/** A value that fits `schema` (good enough to get past one field and reach the next). */
export function validValue(schema: Schema, random: () => number): Json {
  if (Array.isArray(schema.enum)) return pick(random, schema.enum);
  if ('const' in schema) return schema.const;
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (schema.anyOf || schema.oneOf)
    return validValue(((schema.anyOf ?? schema.oneOf) as Schema[])[0]!, random);
  switch (type) {
    case 'string':
      if (schema.format === 'uuid') return crypto.randomUUID();
      if (schema.format === 'email') return `fuzz${Math.floor(random() * 1e9)}@example.test`;
      return `fuzz ${Math.floor(random() * 1e6)}`;
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return random() < 0.5;
    case 'array':
      return schema.items ? [validValue(schema.items as Schema, random)] : [];
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      return Object.fromEntries(Object.entries(properties).map(([k, s]) => [k, validValue(s, random)]));
    }
    default:
      return null;
  }
}
