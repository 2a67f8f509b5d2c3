// MikroORM 7's `em.execute` sends no bind parameters: it writes each value
// into the SQL text (Platform.formatQuery, AbstractSqlPlatform.quoteValue,
// BasePostgreSqlPlatform.escape/escapeLiteral/quoteIdentifier) and sends the
// text as a simple query. The stores rely on it: `IN (?)` with an array, and
// untyped `?` in a SELECT list, `payload->>?`, `coalesce(?, …)`,
// `set_config(…, ?, true)`, which work because each value is a typed literal.
// This is a port of those functions, quirks included (test: format.spec.ts
// compares it with MikroORM's own). Raw fragments (MikroORM's `raw()`) are
// not ported: nothing passes one.

/**
 * `sql` with its `?` replaced by the values of `params`, in order: `??` by a
 * quoted identifier, `\?` by a literal `?`. Without parameters the text is
 * returned unchanged (so a `?` operator, or several statements, pass as written).
 */
export function formatQuery(sql: string, params: readonly unknown[]): string {
  if (params.length === 0) return sql;
  let j = 0;
  let pos = 0;
  let ret = '';
  if (sql.startsWith('?')) {
    if (sql[1] === '?') {
      ret += quoteIdentifier(params[j++]);
      pos = 2;
    } else {
      ret += concatenated(quoteValue(params[j++]));
      pos = 1;
    }
  }
  while (pos < sql.length) {
    // From pos + 1, as MikroORM does: a `?` right at `pos` is copied as it is.
    const idx = sql.indexOf('?', pos + 1);
    if (idx === -1) {
      ret += sql.substring(pos, sql.length);
      break;
    }
    if (sql.substring(idx - 1, idx + 1) === '\\?') {
      ret += `${sql.substring(pos, idx - 1)}?`;
      pos = idx + 1;
    } else if (sql.substring(idx, idx + 2) === '??') {
      ret += sql.substring(pos, idx) + quoteIdentifier(params[j++]);
      pos = idx + 2;
    } else {
      ret += sql.substring(pos, idx) + concatenated(quoteValue(params[j++]));
      pos = idx + 1;
    }
  }
  return ret;
}

/** What `'' + value` gives: MikroORM concatenates whatever `escape` returned (a number, null, undefined, an object). */
function concatenated(value: unknown): string {
  // biome-ignore lint/style/useTemplate: `+` converts as MikroORM's concatenation does (valueOf first), a template would not
  return '' + (value as string);
}

function quoteValue(value: unknown): unknown {
  if (isPlainObject(value)) return escapeValue(JSON.stringify(value));
  return escapeValue(value);
}

function escapeValue(value: unknown): unknown {
  if (typeof value === 'bigint') return escapeLiteral(value.toString());
  if (typeof value === 'string') return escapeLiteral(value);
  // MikroORM's `forceUtcTimezone` defaults to true: formatDate is toISOString.
  if (value instanceof Date) return `'${value.toISOString()}'`;
  if (ArrayBuffer.isView(value)) {
    return `E'\\\\x${(value as unknown as { toString(encoding: string): string }).toString('hex')}'`;
  }
  if (Array.isArray(value)) return value.map((item) => escapeValue(item)).join(', ');
  return value;
}

/** libpq's PQescapeLiteral: `'` and `\` doubled, and ` E'…'` (with a leading space) when there is a backslash. */
function escapeLiteral(str: string): string {
  let hasBackslash = false;
  let escaped = `'`;
  for (const c of str) {
    if (c === `'`) {
      escaped += c + c;
    } else if (c === '\\') {
      escaped += c + c;
      hasBackslash = true;
    } else {
      escaped += c;
    }
  }
  escaped += `'`;
  if (hasBackslash) escaped = ` E${escaped}`;
  return escaped;
}

/** `"…"` with `"` doubled; the first `.` (only) separates a schema from a table. */
function quoteIdentifier(id: unknown): string {
  const escaped = (id as { toString(): string }).toString().replaceAll('"', '""');
  return `"${escaped.replace('.', '"."')}"`;
}

/** MikroORM's Utils.isPlainObject: a literal object or one without a prototype. */
function isPlainObject(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  const maker = (value as { constructor?: unknown }).constructor;
  if (
    typeof maker === 'function' &&
    (Object.hasOwn(maker.prototype, 'isPrototypeOf') || Object.getPrototypeOf(maker.prototype) === null)
  ) {
    return true;
  }
  return Object.getPrototypeOf(value) === null;
}
