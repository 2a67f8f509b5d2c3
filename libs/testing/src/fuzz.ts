// A small schema-aware fuzzer for the public API (docs/security.md): it
// reads an OpenAPI 3.1 document and makes requests whose parameters and
// bodies are wrong in every way a client can be wrong, from a seed, so a
// failing run can be replayed. Each request goes through Fastify's inject().

type Json = unknown;
type Schema = Record<string, unknown>;

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
  /** Which operation and what was broken, for the failure message. */
  label: string;
}

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

const NASTY_STRINGS = [
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
const NASTY_VALUES: Json[] = [
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
function encode(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ED%A0%80';
  }
}

const pick = <T>(random: () => number, list: readonly T[]): T => list[Math.floor(random() * list.length)]!;

/** A value that fits `schema` (good enough to get past one field and reach the next). */
function validValue(schema: Schema, random: () => number): Json {
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

/** A body that is valid but for one field, or wrong as a whole. */
function badBody(schema: Schema | undefined, random: () => number): { payload: string; what: string } {
  const valid = (schema ? validValue(schema, random) : {}) as Record<string, Json>;
  const roll = random();
  if (roll < 0.1)
    return { payload: pick(random, ['{', '[1,2', '"x"', 'nul', '{"a":1}}', '']), what: 'malformed JSON' };
  if (roll < 0.2)
    return { payload: JSON.stringify(pick(random, NASTY_VALUES)), what: 'a body of the wrong shape' };
  const fields = Object.keys(valid);
  if (roll < 0.3 || fields.length === 0) {
    return {
      payload: JSON.stringify({ ...valid, [pick(random, ['admin', 'tenantId', 'id', '__proto__'])]: 1 }),
      what: 'an unknown field',
    };
  }
  const field = pick(random, fields);
  if (roll < 0.4) {
    const { [field]: _removed, ...rest } = valid;
    return { payload: JSON.stringify(rest), what: `${field} missing` };
  }
  const value = random() < 0.5 ? pick(random, NASTY_STRINGS) : pick(random, NASTY_VALUES);
  return {
    payload: JSON.stringify({ ...valid, [field]: value }),
    what: `${field} = ${String(JSON.stringify(value)).slice(0, 40)}`,
  };
}

function badParam(random: () => number): string {
  return pick(random, [
    crypto.randomUUID(),
    'not-a-uuid',
    '00000000-0000-0000-0000-000000000000',
    ...NASTY_STRINGS.filter((s) => s.length < 1000),
    '1e9999',
    '%zz',
    '-1',
    '0',
    '101',
    'eyJhIjoxfQ',
  ]);
}

/**
 * `count` requests against the operations of `spec` (skipping those whose
 * media type is in `skipProduces`, such as streams), each with bad path or
 * query parameters, a bad body, or a wrong content type.
 */
export function fuzzRequests(
  spec: { paths: Record<string, Record<string, Schema>> },
  options: {
    count: number;
    seed: number;
    headers: Record<string, string>;
    skip?: (path: string, method: string) => boolean;
  },
): FuzzRequest[] {
  const random = seededRandom(options.seed);
  const operations = Object.entries(spec.paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .filter(([method]) => !options.skip?.(path, method))
      .map(([method, operation]) => ({ path, method, operation })),
  );
  const requests: FuzzRequest[] = [];
  for (let i = 0; i < options.count; i++) {
    const { path, method, operation } = pick(random, operations);
    const parameters = (operation.parameters ?? []) as { name: string; in: string }[];
    const url = path.replace(/\{(\w+)\}/g, () => encode(badParam(random)));
    const query = parameters
      .filter((p) => p.in === 'query' && random() < 0.7)
      .map((p) => `${p.name}=${encode(badParam(random))}`);
    if (random() < 0.2)
      query.push(`${pick(random, ['unknown', 'limit', '__proto__[x]'])}=${encode(badParam(random))}`);
    const headers: Record<string, string> = { ...options.headers };
    let payload: string | undefined;
    let what = 'parameters';
    if (method !== 'get') {
      const body = (operation.requestBody as Schema | undefined)?.content as
        | Record<string, { schema?: Schema }>
        | undefined;
      const bad = badBody(body?.['application/json']?.schema, random);
      payload = bad.payload;
      what = bad.what;
      headers['content-type'] =
        random() < 0.9
          ? 'application/json'
          : pick(random, [
              'text/plain',
              'application/xml',
              'application/x-www-form-urlencoded',
              'multipart/form-data; boundary=x',
            ]);
      if (random() < 0.3) headers['idempotency-key'] = pick(random, ['', 'k'.repeat(300), `fuzz-${i}`]);
    }
    requests.push({
      method: method.toUpperCase(),
      url: query.length > 0 ? `${url}?${query.join('&')}` : url,
      headers,
      ...(payload === undefined ? {} : { payload }),
      label: `${method.toUpperCase()} ${path}: ${what}`,
    });
  }
  return requests;
}
