// Personal data stays out of spans and logs (docs/security.md, API3): SQL
// text loses its literals (MikroORM writes values into the SQL it sends), and
// URLs keep their query's parameter names but not their values.

/**
 * The SQL with every literal replaced by `?`: quoted strings (with `''`
 * escapes, `E'…'` and dollar-quoted bodies), and numbers that are not part
 * of an identifier. Identifiers, keywords and `$1` placeholders stay, so the
 * statement still says what it did.
 */
export function scrubSql(sql: string): string {
  return sql
    .replace(/\$([A-Za-z_]\w*)?\$[\s\S]*?\$\1\$/g, '?')
    .replace(/(?<![\w'])[eE]'(?:[^'\\]|''|\\.)*'/g, '?')
    .replace(/(?<![\w'])'(?:[^']|'')*'/g, '?')
    .replace(/(?<![\w$.])-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\b/g, '?');
}

/** `/path?recipient=bob@x&limit=2` → `/path?recipient=*&limit=*`: names kept, values gone. */
export function scrubUrl(url: string): string {
  const at = url.indexOf('?');
  if (at < 0) return url;
  const names = url
    .slice(at + 1)
    .split('&')
    .filter(Boolean)
    .map((pair) => `${pair.split('=')[0]}=*`);
  return `${url.slice(0, at)}?${names.join('&')}`;
}
