import type { JaegerTrace } from './jaeger.ts';
import { formatMicros, spanTree, type TreeRow } from './span-tree.ts';

// ANSI colours per service, in order of first appearance; red is kept for errors.
const SERVICE_COLOURS = [36, 33, 35, 32, 34, 96, 93, 95, 92, 94];

/**
 * A trace as an indented tree for a terminal: offset from the trace start,
 * duration, then service and span name under box-drawing guides; errors
 * marked with ✗ and their status message.
 */
export function renderTraceTree(trace: JaegerTrace, options: { color: boolean }): string {
  const paint = (code: number, text: string) => (options.color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const tree = spanTree(trace);
  const colourOf = new Map(tree.services.map((s, i) => [s, SERVICE_COLOURS[i % SERVICE_COLOURS.length]!]));
  const errors = tree.rows.filter((r) => r.error).length;
  const root = tree.rows[0];
  const lines = [
    `trace ${trace.traceID}`,
    [
      root ? `${root.service}: ${root.span.operationName}` : 'no spans',
      `${tree.rows.length} span${tree.rows.length === 1 ? '' : 's'}`,
      `${tree.services.length} service${tree.services.length === 1 ? '' : 's'} (${tree.services.join(', ')})`,
      formatMicros(tree.duration),
      errors > 0 ? paint(31, `${errors} error${errors === 1 ? '' : 's'}`) : 'no errors',
    ].join(' · '),
    '',
    paint(2, `${'offset'.padStart(10)}  ${'duration'.padStart(10)}`),
  ];
  for (const row of tree.rows) {
    const mark = row.error ? `${paint(31, '✗')} ` : '';
    const service = paint(colourOf.get(row.service)!, row.service);
    const name = row.error ? paint(31, row.span.operationName) : row.span.operationName;
    const notes = [
      row.errorMessage ? paint(31, `(${row.errorMessage})`) : '',
      row.orphan ? paint(2, '(parent not in trace)') : '',
    ].filter(Boolean);
    lines.push(
      `${paint(2, `+${formatMicros(row.offset)}`.padStart(10))}  ${formatMicros(row.span.duration).padStart(10)}  ${guides(row)}${mark}${service}  ${name}${notes.length > 0 ? `  ${notes.join(' ')}` : ''}`,
    );
  }
  for (const warning of trace.warnings ?? []) lines.push(paint(33, `warning: ${warning}`));
  return `${lines.join('\n')}\n`;
}

function guides(row: TreeRow): string {
  if (row.depth === 0) return '';
  return `${row.openLevels.map((open) => (open ? '│  ' : '   ')).join('')}${row.last ? '└─ ' : '├─ '}`;
}
