// A small schema-aware fuzzer for the public API (docs/security.md): it
// reads an OpenAPI 3.1 document and makes requests whose parameters, JSON
// bodies and multipart forms are wrong in every way a client can be wrong,
// from a seed, so a failing run can be replayed. Each request goes through
// Fastify's inject().
import { badForm } from './fuzz-form.ts';
import {
  encode,
  type Json,
  NASTY_STRINGS,
  NASTY_VALUES,
  pick,
  type Schema,
  seededRandom,
  validValue,
} from './fuzz-values.ts';

export { seededRandom } from './fuzz-values.ts';

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
  /** Which operation and what was broken, for the failure message. */
  label: string;
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
 * `count` requests against the operations of `spec` (but those `skip`
 * names, such as streams), each with bad path or query parameters, a bad
 * JSON body or multipart form (whichever the operation takes), or a wrong
 * content type.
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
    let payload: string | Buffer | undefined;
    let what = 'parameters';
    if (method !== 'get') {
      const body = (operation.requestBody as Schema | undefined)?.content as
        | Record<string, { schema?: Schema }>
        | undefined;
      const form = body?.['multipart/form-data'];
      const bad = form
        ? badForm(form.schema, random)
        : { ...badBody(body?.['application/json']?.schema, random), contentType: 'application/json' };
      payload = bad.payload;
      what = bad.what;
      headers['content-type'] =
        random() < 0.9
          ? bad.contentType
          : pick(random, [
              'text/plain',
              'application/xml',
              'application/json',
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
