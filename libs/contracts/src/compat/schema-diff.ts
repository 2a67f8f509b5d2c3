// A structural comparison of two JSON Schemas (draft-07 / OpenAPI 3.1, as
// zod and the route schemas emit them). Each change says which way it moves
// the set of accepted values: `narrows` refuses something the old schema
// accepted, `widens` accepts something it refused. Whether that breaks
// anyone depends on who writes and who reads (rules.ts).
import { SQS_TEXT } from '../transport/sqs-text.ts';

type Json = Record<string, unknown>;

export type ChangeKind =
  | 'field-removed'
  | 'field-added-optional'
  | 'field-added-required'
  | 'made-required'
  | 'made-optional'
  | 'type-changed'
  | 'enum-narrowed'
  | 'enum-widened'
  | 'enum-changed'
  | 'const-changed'
  | 'format-changed'
  | 'pattern-changed'
  /** SQS's character set made explicit: it refuses nothing a queue ever carried. */
  | 'transport-implied'
  | 'bound-changed'
  | 'closed-changed'
  | 'union-changed';

export interface SchemaChange {
  kind: ChangeKind;
  /** Where, dotted from the schema's root: `data.skills[]`, `data.owner|1`. */
  path: string;
  detail: string;
  narrows: boolean;
  widens: boolean;
}

/** Turns `{ $ref }` into the schema it names (OpenAPI components); identity when there is none. */
export type RefResolver = (schema: Json) => Json;

const LOWER = ['minLength', 'minimum', 'exclusiveMinimum', 'minItems', 'minProperties'] as const;
const UPPER = ['maxLength', 'maximum', 'exclusiveMaximum', 'maxItems', 'maxProperties'] as const;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const show = (value: unknown) => JSON.stringify(value);
const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

const jsonType = (value: unknown) =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'array'
      : Number.isInteger(value)
        ? 'integer'
        : typeof value;

/**
 * The JSON types a schema admits, undefined for any: its `type`, else the
 * union of its anyOf/oneOf branches' (`integer | null` is written that way),
 * else those of its `const` or `enum` values. `integer` is kept apart from
 * `number` (it is a subset).
 */
function typesOf(schema: Json, resolve: RefResolver): Set<string> | undefined {
  if (schema.type !== undefined) {
    return new Set(Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string]);
  }
  const branches = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (branches?.length) {
    const types = new Set<string>();
    for (const branch of branches) {
      const found = typesOf(resolve(branch), resolve);
      if (!found) return undefined;
      for (const t of found) types.add(t);
    }
    return types;
  }
  if (schema.const !== undefined) return new Set([jsonType(schema.const)]);
  if (Array.isArray(schema.enum)) return new Set(schema.enum.map(jsonType));
  return undefined;
}

const covers = (types: Set<string>, type: string) =>
  types.has(type) || (type === 'integer' && types.has('number'));

/** The changes from `before` to `after`; `$ref`s resolve in each schema's own document. */
export function diffSchemas(
  before: Json,
  after: Json,
  resolveBefore: RefResolver = (s) => s,
  resolveAfter: RefResolver = resolveBefore,
): SchemaChange[] {
  const changes: SchemaChange[] = [];
  const seen = new Set<string>();
  const add = (kind: ChangeKind, path: string, detail: string, narrows: boolean, widens: boolean) =>
    changes.push({ kind, path, detail, narrows, widens });

  const compareBounds = (a: Json, b: Json, path: string) => {
    for (const [keys, tighter] of [
      [LOWER, (x: number, y: number) => y > x],
      [UPPER, (x: number, y: number) => y < x],
    ] as const) {
      for (const key of keys) {
        const x = a[key] as number | undefined;
        const y = b[key] as number | undefined;
        if (x === y) continue;
        const narrows = x === undefined || (y !== undefined && tighter(x, y));
        add('bound-changed', path, `${key} ${show(x)} → ${show(y)}`, narrows, !narrows);
      }
    }
    if (a.multipleOf !== b.multipleOf)
      add('bound-changed', path, `multipleOf ${show(a.multipleOf)} → ${show(b.multipleOf)}`, true, true);
    if (Boolean(a.uniqueItems) !== Boolean(b.uniqueItems)) {
      add('bound-changed', path, `uniqueItems → ${Boolean(b.uniqueItems)}`, !a.uniqueItems, !!a.uniqueItems);
    }
  };

  // A keyword whose presence narrows (format, pattern, const): added narrows, removed widens, changed both.
  const compareKeyword = (kind: ChangeKind, key: string, a: Json, b: Json, path: string) => {
    if (show(a[key]) === show(b[key])) return;
    // SQS's own character set narrows nothing a queue ever delivered (transport/sqs-text.ts).
    if (key === 'pattern' && a[key] === undefined && b[key] === SQS_TEXT.source) {
      return add('transport-implied', path, `${key} → SQS's character set`, false, false);
    }
    add(kind, path, `${key} ${show(a[key])} → ${show(b[key])}`, b[key] !== undefined, a[key] !== undefined);
  };

  const compareEnum = (a: Json, b: Json, path: string) => {
    if (a.enum === undefined && b.enum === undefined) return;
    if (a.enum === undefined || b.enum === undefined) {
      const added = a.enum === undefined;
      return add('enum-changed', path, `enum ${added ? 'added' : 'removed'}`, added, !added);
    }
    const before = (a.enum as unknown[]).map(show);
    const after = (b.enum as unknown[]).map(show);
    const removed = before.filter((v) => !after.includes(v));
    const added = after.filter((v) => !before.includes(v));
    if (removed.length) add('enum-narrowed', path, `enum values removed: ${removed.join(', ')}`, true, false);
    if (added.length) add('enum-widened', path, `enum values added: ${added.join(', ')}`, false, true);
  };

  const compareObject = (a: Json, b: Json, path: string) => {
    const before = (a.properties ?? {}) as Record<string, Json>;
    const after = (b.properties ?? {}) as Record<string, Json>;
    const requiredBefore = new Set((a.required ?? []) as string[]);
    const requiredAfter = new Set((b.required ?? []) as string[]);
    const addedNames = Object.keys(after).filter((k) => !Object.hasOwn(before, k));
    for (const [name, schema] of Object.entries(before)) {
      const at = join(path, name);
      if (!Object.hasOwn(after, name)) {
        // A removal beside an addition of the same shape is most likely a rename: say so.
        const twin = addedNames.find((n) => show(resolveAfter(after[n]!)) === show(resolveBefore(schema)));
        add('field-removed', at, twin ? `removed (renamed to ${twin}?)` : 'removed', true, true);
        continue;
      }
      if (requiredBefore.has(name) && !requiredAfter.has(name))
        add('made-optional', at, 'now optional', false, true);
      if (!requiredBefore.has(name) && requiredAfter.has(name))
        add('made-required', at, 'now required', true, false);
      compare(schema, after[name]!, at);
    }
    for (const name of addedNames) {
      if (requiredAfter.has(name))
        add('field-added-required', join(path, name), 'added, required', true, false);
      else add('field-added-optional', join(path, name), 'added, optional', false, false);
    }
    const closedBefore = a.additionalProperties === false;
    const closedAfter = b.additionalProperties === false;
    if (closedBefore !== closedAfter) {
      add(
        'closed-changed',
        path,
        closedAfter ? 'now refuses unknown fields' : 'now accepts unknown fields',
        closedAfter,
        closedBefore,
      );
    }
    if (isObject(a.additionalProperties) && isObject(b.additionalProperties)) {
      compare(a.additionalProperties, b.additionalProperties, join(path, '*'));
    }
  };

  // Unions and intersections are compared branch by branch, in order (zod and the routes emit them stably).
  const compareBranches = (key: 'anyOf' | 'oneOf' | 'allOf', a: Json, b: Json, path: string) => {
    const before = (a[key] ?? []) as Json[];
    const after = (b[key] ?? []) as Json[];
    if (before.length === 0 && after.length === 0) return;
    const shared = Math.min(before.length, after.length);
    for (let i = 0; i < shared; i++) compare(before[i]!, after[i]!, `${path}|${i}`);
    if (before.length !== after.length) {
      // More anyOf/oneOf branches widen; more allOf parts narrow.
      const grew = after.length > before.length;
      const widens = key === 'allOf' ? !grew : grew;
      add('union-changed', path, `${key} ${before.length} → ${after.length} branches`, !widens, widens);
    }
  };

  function compare(rawBefore: Json, rawAfter: Json, path: string): void {
    const pair = `${show(rawBefore.$ref)}→${show(rawAfter.$ref)}@${path}`;
    if (rawBefore.$ref !== undefined && rawAfter.$ref !== undefined) {
      if (seen.has(pair)) return; // a recursive schema: this pair is being compared further up
      seen.add(pair);
    }
    const a = resolveBefore(rawBefore);
    const b = resolveAfter(rawAfter);
    const typesBefore = typesOf(a, resolveBefore);
    const typesAfter = typesOf(b, resolveAfter);
    if (show(typesBefore && [...typesBefore].sort()) !== show(typesAfter && [...typesAfter].sort())) {
      const lost = typesAfter ? [...(typesBefore ?? ['any'])].filter((t) => !covers(typesAfter, t)) : [];
      const gained = typesBefore ? [...(typesAfter ?? ['any'])].filter((t) => !covers(typesBefore, t)) : [];
      add(
        'type-changed',
        path,
        `type ${show(a.type ?? 'any')} → ${show(b.type ?? 'any')}`,
        lost.length > 0,
        gained.length > 0,
      );
      // Different kinds of value: what lies below them is not comparable.
      if (typesBefore && typesAfter && ![...typesBefore].some((t) => covers(typesAfter, t))) return;
    }
    compareKeyword('const-changed', 'const', a, b, path);
    compareEnum(a, b, path);
    compareKeyword('format-changed', 'format', a, b, path);
    compareKeyword('pattern-changed', 'pattern', a, b, path);
    compareBounds(a, b, path);
    if (a.properties || b.properties || a.required || b.required) compareObject(a, b, path);
    if (isObject(a.items) && isObject(b.items)) compare(a.items, b.items, `${path}[]`);
    for (const key of ['anyOf', 'oneOf', 'allOf'] as const) compareBranches(key, a, b, path);
  }

  compare(before, after, '');
  return changes;
}
