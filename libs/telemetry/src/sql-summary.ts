// A database span is named by what its statement does, as OpenTelemetry's
// database conventions ask (`db.query.summary`: each operation and the tables
// it names, in the order written, such as `INSERT job_posting INSERT outbox`),
// not by a prepared statement's name (`hf_9e0b…`), which says nothing to a
// reader. Only keywords and identifiers are kept: a literal never reaches the
// summary, so it needs no scrubbing.

const TOKEN =
  /\s+|--[^\n]*|\/\*[\s\S]*?\*\/|[eE]'(?:[^'\\]|''|\\.)*'|'(?:[^']|'')*'|\$([A-Za-z_]\w*)?\$[\s\S]*?\$\1\$|"(?:[^"]|"")*"|[A-Za-z_][\w$]*|\$\d+|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|::|[(),.;]|./gy;

interface Token {
  /** Identifier text as written (a quoted one unquoted), or the punctuation. */
  text: string;
  /** Upper-cased for keyword comparison; empty for a quoted identifier. */
  word: string;
}

const OPERATIONS = new Set(['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'MERGE']);
/** Words after which UPDATE is no operation: `DO UPDATE`, `FOR [NO KEY] UPDATE`, `ON UPDATE`. */
const NOT_AN_UPDATE = new Set(['DO', 'FOR', 'KEY', 'ON']);
/** Words that open a query inside parentheses (a subquery, a CTE's body). */
const QUERY_START = new Set([...OPERATIONS, 'WITH', 'VALUES', 'TABLE']);
/** Words that can follow a table name and so are no alias of it. */
const CLAUSES = new Set([
  'WHERE',
  'JOIN',
  'INNER',
  'LEFT',
  'RIGHT',
  'FULL',
  'CROSS',
  'NATURAL',
  'ON',
  'USING',
  'GROUP',
  'ORDER',
  'LIMIT',
  'OFFSET',
  'FOR',
  'RETURNING',
  'SET',
  'VALUES',
  'SELECT',
  'UNION',
  'EXCEPT',
  'INTERSECT',
  'WINDOW',
  'HAVING',
  'FETCH',
  'DEFAULT',
  'OVERRIDING',
  'TABLESAMPLE',
  'DO',
  'AS',
  'WHEN',
  'LATERAL',
  'ONLY',
]);
/** Statements other than DML whose target follows the word TABLE (`TRUNCATE TABLE t`, `LOCK t`). */
const TABLE_STATEMENTS = new Set(['TRUNCATE', 'LOCK', 'ALTER', 'CREATE', 'DROP']);
const TABLE_MODIFIERS = new Set(['TABLE', 'IF', 'NOT', 'EXISTS', 'ONLY', 'UNLOGGED']);
const MAX_LENGTH = 255;

function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < sql.length) {
    const match = TOKEN.exec(sql);
    if (!match) break;
    const text = match[0];
    const first = text[0]!;
    if (first === '"') tokens.push({ text: text.slice(1, -1).replaceAll('""', '"'), word: '' });
    else if (/[A-Za-z_]/.test(first) && !(text.length > 1 && text[1] === "'")) {
      tokens.push({ text, word: text.toUpperCase() });
    } else if ('(),.;'.includes(text)) tokens.push({ text, word: text });
  }
  return tokens;
}

const isName = (t: Token | undefined) => t !== undefined && (t.word === '' || /^[A-Z_]/.test(t.word));

/** Names defined by `WITH name [(columns)] AS [[NOT] MATERIALIZED] (`: not tables. */
function cteNames(tokens: Token[]): Set<string> {
  const names = new Set<string>();
  for (let i = 0; i < tokens.length - 2; i++) {
    if (!isName(tokens[i])) continue;
    let j = i + 1;
    if (tokens[j]?.text === '(') {
      while (j < tokens.length && tokens[j]!.text !== ')') j++;
      j++;
    }
    if (tokens[j]?.word !== 'AS') continue;
    j++;
    if (tokens[j]?.word === 'NOT') j++;
    if (tokens[j]?.word === 'MATERIALIZED') j++;
    if (tokens[j]?.text === '(' && QUERY_START.has(tokens[j + 1]?.word ?? '')) names.add(tokens[i]!.text);
  }
  return names;
}

/**
 * The statement's summary per OpenTelemetry's database conventions: each
 * operation (SELECT, INSERT, UPDATE, DELETE, MERGE) followed by the tables it
 * names, in the order written; CTE names and functions are no tables, and a
 * SELECT that reads no table (`INSERT … SELECT ?, ?`, a CTE's result) adds
 * nothing unless it is all there is. Other statements give their first word
 * (`BEGIN`, `LISTEN`), and their table where they name one (`TRUNCATE t`).
 * Undefined for text with no word.
 */
export function summarizeSql(sql: string): string | undefined {
  const tokens = tokenize(sql);
  const first = tokens.find((t) => t.text !== '(');
  if (!first || first.word === '') return undefined;
  if (!QUERY_START.has(first.word)) return otherStatement(tokens);

  const ctes = cteNames(tokens);
  const parts: { op: string; targets: string[] }[] = [];
  /** Per open parenthesis: does it hold a query (a FROM inside counts) or an expression (`EXTRACT(x FROM y)`)? */
  const parens: boolean[] = [];
  const inQuery = () => parens.length === 0 || parens[parens.length - 1] === true;

  /** Reads `name[.name]` at `i`; a subquery, or a function call where a FROM could have one, is no table. */
  const readTable = (i: number, columnsMayFollow = false): { name?: string; next: number } => {
    while (tokens[i]?.word === 'ONLY' || tokens[i]?.word === 'LATERAL') i++;
    if (!isName(tokens[i])) return { next: i };
    let name = tokens[i]!.text;
    i++;
    while (tokens[i]?.text === '.' && isName(tokens[i + 1])) {
      name += `.${tokens[i + 1]!.text}`;
      i += 2;
    }
    if (tokens[i]?.text === '(' && !columnsMayFollow) return { next: i };
    if (!ctes.has(name)) parts[parts.length - 1]?.targets.push(name);
    return { name, next: i };
  };

  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.text === '(') {
      parens.push(QUERY_START.has(tokens[i + 1]?.word ?? ''));
      continue;
    }
    if (token.text === ')') {
      parens.pop();
      continue;
    }
    if (!inQuery()) continue;
    const word = token.word;
    if (OPERATIONS.has(word)) {
      if (word === 'UPDATE' && NOT_AN_UPDATE.has(tokens[i - 1]?.word ?? '')) continue;
      parts.push({ op: word, targets: [] });
      if (word === 'UPDATE') i = readTable(i + 1).next - 1;
    } else if (word === 'INTO') {
      // `INSERT INTO t (columns)`: the parenthesis is a column list, not a call.
      i = readTable(i + 1, true).next - 1;
    } else if (word === 'JOIN') {
      i = readTable(i + 1).next - 1;
    } else if (word === 'FROM') {
      // `FROM a [AS] x, b y`: each table of the list, aliases skipped.
      let next = i + 1;
      for (;;) {
        const read = readTable(next);
        next = read.next;
        if (read.name === undefined) break;
        if (tokens[next]?.word === 'AS') next++;
        if (isName(tokens[next]) && !CLAUSES.has(tokens[next]!.word)) next++;
        if (tokens[next]?.text !== ',') break;
        next++;
      }
      i = next - 1;
    }
  }
  const kept = parts.filter((p) => p.op !== 'SELECT' || p.targets.length > 0);
  const summary = (kept.length > 0 ? kept : parts.slice(0, 1))
    .map((p) => [p.op, ...p.targets].join(' '))
    .join(' ');
  return summary.length > MAX_LENGTH ? summary.slice(0, MAX_LENGTH) : summary;
}

/** `BEGIN`, `LISTEN`; `TRUNCATE t`, `LOCK t`, `ALTER t` for `ALTER TABLE t`, `CREATE INDEX` (no table). */
function otherStatement(tokens: Token[]): string {
  const op = tokens[0]!.word;
  if (!TABLE_STATEMENTS.has(op)) return op;
  let i = 1;
  let table = op === 'LOCK' || op === 'TRUNCATE';
  for (; TABLE_MODIFIERS.has(tokens[i]?.word ?? ''); i++) if (tokens[i]!.word === 'TABLE') table = true;
  return table && isName(tokens[i]) ? `${op} ${tokens[i]!.text}` : op;
}
