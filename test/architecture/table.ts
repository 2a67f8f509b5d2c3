// docs/architecture.md's table of packages, read as data: each package's row
// says what it may import of the workspace, and the import graph must match
// it both ways (an import the row does not allow; a row allowing what the
// package no longer imports, i.e. a table that has drifted).
import type { Edge } from './graph.ts';

export interface TableRow {
  name: string;
  path: string;
  /** Workspace packages its processes may import, by full name. */
  mayImport: Set<string>;
}

const cells = (line: string) =>
  line
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((cell) => cell.trim());

/**
 * The rows of the table whose header has `package`, `path` and `may import`.
 * A "may import" cell lists workspace packages by their short name (`db` for
 * `@hireflow/db`), comma-separated; words in parentheses are notes; `—` is none.
 */
export function readTable(markdown: string): TableRow[] {
  const lines = markdown.split('\n');
  const headerAt = lines.findIndex((line) => {
    const header = cells(line);
    return line.startsWith('|') && header.includes('package') && header.includes('may import');
  });
  if (headerAt < 0) throw new Error('no table with a "may import" column');
  const header = cells(lines[headerAt]!);
  const [name, path, may] = ['package', 'path', 'may import'].map((title) => header.indexOf(title));
  const rows: TableRow[] = [];
  for (const line of lines.slice(headerAt + 2)) {
    if (!line.startsWith('|')) break;
    const row = cells(line);
    const allowed = row[may!]!.replace(/\([^)]*\)/g, '')
      .replaceAll('`', '')
      .trim();
    rows.push({
      name: row[name!]!.replaceAll('`', ''),
      path: row[path!]!.replaceAll('`', ''),
      mayImport: new Set(
        allowed === '—'
          ? []
          : allowed
              .split(',')
              .map((short) => short.trim())
              .filter(Boolean)
              .map((short) => `@hireflow/${short}`),
      ),
    });
  }
  return rows;
}

/** A row's path as a pattern: `services/<service>` stands for every folder of `services/`. */
const pathPattern = (path: string) => new RegExp(`^${path.replace(/<[^>]+>/g, '[^/]+')}$`);

/**
 * The table against the graph of what processes load (tests' imports aside:
 * they may import any package that does not import them back). Every
 * package has a row (one row may stand for several: `services/<service>`),
 * imports only what its row allows, and its row allows nothing that none of
 * its packages imports.
 */
export function tableViolations(rows: TableRow[], packages: { name: string; path: string }[], edges: Edge[]) {
  const violations: string[] = [];
  const covered = new Set<string>();
  for (const row of rows) {
    const members = packages.filter((p) => pathPattern(row.path).test(p.path));
    if (members.length === 0) violations.push(`the table's row ${row.name} (${row.path}) is no package`);
    const imports = edges.filter((e) => !e.test && members.some((m) => m.name === e.from));
    for (const member of members) covered.add(member.name);
    for (const edge of imports) {
      if (!row.mayImport.has(edge.to))
        violations.push(`${edge.file} imports ${edge.to}, which the row of ${row.name} does not allow`);
    }
    for (const allowed of row.mayImport) {
      if (!imports.some((e) => e.to === allowed))
        violations.push(
          `the row of ${row.name} allows ${allowed}, which it does not import (the table has drifted)`,
        );
    }
  }
  for (const pkg of packages) {
    if (!covered.has(pkg.name)) violations.push(`${pkg.name} (${pkg.path}) has no row in the table`);
  }
  return violations;
}
