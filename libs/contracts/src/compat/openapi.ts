// The public OpenAPI document against its last release, so that the typed
// client (clients/typescript, generated from it) never breaks silently:
// what a released client calls must still exist, what it sends must still
// be accepted, and what it reads must still come back as its types say.
import { type Finding, judge, type SchemaRole } from './rules.ts';
import { diffSchemas, type RefResolver } from './schema-diff.ts';

type Json = Record<string, unknown>;

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/** Follows `$ref: '#/…'` inside the document (components), to the schema or object it names. */
export function refResolver(doc: Json): RefResolver {
  return (node) => {
    let current = node;
    for (let hops = 0; typeof current.$ref === 'string' && hops < 32; hops++) {
      const pointer = (current.$ref as string).replace(/^#\//, '').split('/');
      const unescaped = pointer.map((p) => decodeURIComponent(p).replaceAll('~1', '/').replaceAll('~0', '~'));
      const target = unescaped.reduce<unknown>((at, key) => (at as Json | undefined)?.[key], doc);
      if (typeof target !== 'object' || target === null) break;
      current = target as Json;
    }
    return current;
  };
}

interface Side {
  doc: Json;
  resolve: RefResolver;
}

const side = (doc: Json): Side => ({ doc, resolve: refResolver(doc) });
const entries = (value: unknown) => Object.entries((value ?? {}) as Record<string, Json>);

function parameters(s: Side, pathItem: Json, operation: Json): Map<string, Json> {
  const all = [...((pathItem.parameters ?? []) as Json[]), ...((operation.parameters ?? []) as Json[])];
  return new Map(all.map((p) => s.resolve(p)).map((p) => [`${String(p.in)} ${String(p.name)}`, p]));
}

function compareOperation(
  subject: string,
  a: Side,
  b: Side,
  paths: [Json, Json],
  ops: [Json, Json],
): Finding[] {
  const findings: Finding[] = [];
  const at = (path: string, kind: string, detail: string, why: string) =>
    findings.push({ subject, path, kind, detail, breaking: true, why });
  const schemas = (path: string, before: unknown, after: unknown, role: SchemaRole) => {
    if (!before || !after) return;
    for (const change of diffSchemas(before as Json, after as Json, a.resolve, b.resolve)) {
      findings.push({
        subject,
        path: [path, change.path].filter(Boolean).join('.'),
        kind: change.kind,
        detail: change.detail,
        ...judge(change, role),
      });
    }
  };

  const paramsBefore = parameters(a, paths[0], ops[0]);
  const paramsAfter = parameters(b, paths[1], ops[1]);
  for (const [key, before] of paramsBefore) {
    const after = paramsAfter.get(key);
    if (!after) at(key, 'parameter-removed', 'removed', "today's clients send it");
    else {
      if (!before.required && after.required)
        at(key, 'made-required', 'now required', "today's clients may not send it");
      schemas(key, before.schema, after.schema, 'request');
    }
  }
  for (const [key, after] of paramsAfter) {
    if (!paramsBefore.has(key) && after.required)
      at(key, 'parameter-added-required', 'added, required', "today's clients do not send it");
  }

  const bodyBefore = ops[0].requestBody ? a.resolve(ops[0].requestBody as Json) : undefined;
  const bodyAfter = ops[1].requestBody ? b.resolve(ops[1].requestBody as Json) : undefined;
  if (bodyAfter?.required && !bodyBefore?.required)
    at('body', 'made-required', 'request body now required', "today's clients may not send one");
  for (const [type, media] of entries(bodyBefore?.content)) {
    const next = (bodyAfter?.content as Record<string, Json> | undefined)?.[type];
    if (!next) at(`body ${type}`, 'media-type-removed', 'removed', "today's clients send it");
    else schemas(`body`, media.schema, next.schema, 'request');
  }

  const responsesAfter = (ops[1].responses ?? {}) as Record<string, Json>;
  for (const [status, rawBefore] of entries(ops[0].responses)) {
    const before = a.resolve(rawBefore);
    const after = responsesAfter[status] && b.resolve(responsesAfter[status]);
    if (!after) {
      // A documented error that can no longer happen breaks nobody; a success that disappears does.
      if (/^[23]/.test(status)) at(status, 'response-removed', 'removed', "today's clients expect it");
      continue;
    }
    for (const [name, header] of entries(before.headers)) {
      const next = (after.headers as Record<string, Json> | undefined)?.[name];
      if (!next) at(`${status} header ${name}`, 'header-removed', 'removed', "today's clients read it");
      else schemas(`${status} header ${name}`, a.resolve(header).schema, b.resolve(next).schema, 'response');
    }
    for (const [type, media] of entries(before.content)) {
      const next = (after.content as Record<string, Json> | undefined)?.[type];
      if (!next) at(`${status} ${type}`, 'media-type-removed', 'removed', "today's clients read it");
      else schemas(status, media.schema, next.schema, 'response');
    }
  }
  return findings;
}

/** Every difference that matters between the released and the current OpenAPI document, each judged. */
export function compareOpenApi(released: Json, current: Json): Finding[] {
  const a = side(released);
  const b = side(current);
  const findings: Finding[] = [];
  const pathsAfter = (current.paths ?? {}) as Record<string, Json>;
  for (const [path, itemBefore] of entries(released.paths)) {
    const itemAfter = pathsAfter[path];
    for (const method of METHODS.filter((m) => itemBefore[m])) {
      const subject = `${method.toUpperCase()} ${path}`;
      const opAfter = itemAfter?.[method] as Json | undefined;
      if (!opAfter) {
        const kind = itemAfter ? 'operation-removed' : 'path-removed';
        findings.push({
          subject,
          path: '',
          kind,
          detail: 'removed',
          breaking: true,
          why: "today's clients call it",
        });
        continue;
      }
      findings.push(
        ...compareOperation(subject, a, b, [itemBefore, itemAfter!], [itemBefore[method] as Json, opAfter]),
      );
    }
  }
  for (const [path, itemAfter] of entries(current.paths)) {
    for (const method of METHODS.filter(
      (m) => itemAfter[m] && !(released.paths as Record<string, Json>)?.[path]?.[m],
    )) {
      findings.push({
        subject: `${method.toUpperCase()} ${path}`,
        path: '',
        kind: 'operation-added',
        detail: 'added',
        breaking: false,
      });
    }
  }
  return findings;
}
