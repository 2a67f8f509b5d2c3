import { condenseTrace, isStoryStep } from './condense.ts';
import { escapeHtml, formatTime, page, serviceChip } from './html.ts';
import type { JaegerLog, JaegerSpan, JaegerTag, JaegerTrace } from './jaeger.ts';
import { formatMicros, spanTree, type TreeRow } from './span-tree.ts';

const INDENT_PX = 14;

/** The waterfall page of one trace: a row per span, a bar per span on the trace's time axis, details on click. */
export function waterfallPage(
  full: JaegerTrace,
  colourOf: (service: string) => string,
  /** Jaeger's `uiFind`: spans with this id, or whose name contains it, are shown open. */
  find?: string,
  /** Only the story's steps (requests, messages, jobs, work), without SQL, Redis and HTTP-client spans. */
  story = false,
): string {
  const trace = story ? condenseTrace(full, isStoryStep) : full;
  const tree = spanTree(trace);
  const root = tree.rows[0];
  const errors = spanTree(full).rows.filter((r) => r.error).length;
  const id = escapeHtml(full.traceID);
  const toggle = story
    ? `<span>Spans <b>${tree.rows.length}</b> of ${full.spans.length}: the story's steps · <a href="/trace/${id}">show all spans</a></span>`
    : `<span>Spans <b>${tree.rows.length}</b> · <a href="/trace/${id}?story=1">the story's steps only</a></span>`;
  const depth = Math.max(0, ...tree.rows.map((r) => r.depth)) + 1;
  const perService = (service: string) => tree.rows.filter((r) => r.service === service).length;
  const title = root ? `${root.service}: ${root.span.operationName}` : trace.traceID;

  const header = `<h1>${root ? `<span class="svc">${escapeHtml(root.service)}:</span> ${escapeHtml(root.span.operationName)}` : escapeHtml(trace.traceID)}</h1>
<div class="meta"><span>Trace <b class="mono">${escapeHtml(trace.traceID)}</b></span><span>Started <b>${escapeHtml(formatTime(tree.start))}</b></span><span>Duration <b>${escapeHtml(formatMicros(tree.duration))}</b></span>${toggle}<span>Depth <b>${depth}</b></span><span>Errors <b>${errors > 0 ? `<span class="badge">${errors}</span>` : '0'}</b></span><a href="/api/traces/${escapeHtml(trace.traceID)}">JSON</a></div>
<div>${tree.services.map((s) => `${serviceChip(s, colourOf(s), ` <span class="muted">${perService(s)}</span>`)}`).join('')}</div>`;
  const warnings = (trace.warnings ?? []).map((w) => `<div class="warn">${escapeHtml(w)}</div>`).join('');
  const ticks = [0, 0.25, 0.5, 0.75, 1]
    .map(
      (f) =>
        `<span class="tick${f === 1 ? ' end' : ''}" style="left:${f * 100}%">${escapeHtml(formatMicros(tree.duration * f))}</span>`,
    )
    .join('');
  const head = `<div class="row head"><div class="name">Service and operation</div><div class="tl">${ticks}</div></div>`;
  const needle = find?.trim().toLowerCase();
  const found = (row: TreeRow) =>
    Boolean(needle) && (row.span.spanID === needle || row.span.operationName.toLowerCase().includes(needle!));
  const rows = tree.rows.map((row) => spanRow(row, trace, tree.duration, colourOf, found(row))).join('');
  return page(
    title,
    `${header}${warnings}<div style="height:12px"></div><div class="card">${head}${rows}</div>`,
  );
}

function spanRow(
  row: TreeRow,
  trace: JaegerTrace,
  total: number,
  colourOf: (s: string) => string,
  open: boolean,
): string {
  const { span } = row;
  const colour = colourOf(row.service);
  const left = total > 0 ? (row.offset / total) * 100 : 0;
  const width = total > 0 ? (span.duration / total) * 100 : 100;
  // The duration sits right of its bar, or left of it when the bar reaches the end.
  const label =
    left + width < 80
      ? `left:calc(${(left + width).toFixed(3)}% + 6px)`
      : `right:calc(${(100 - left).toFixed(3)}% + 6px)`;
  const name = `<div class="name" style="padding-left:${10 + row.depth * INDENT_PX}px" title="${escapeHtml(`${row.service}: ${span.operationName}`)}"><span class="caret">▶</span><span class="dot" style="background:${colour}"></span><span class="svc">${escapeHtml(row.service)}</span><span class="op">${escapeHtml(span.operationName)}</span>${row.error ? '<span class="badge">error</span>' : ''}</div>`;
  const bar = `<div class="tl"><div class="bar" style="left:${left.toFixed(3)}%;width:${width.toFixed(3)}%;background:${colour}"></div><span class="dur" style="${label}">${escapeHtml(formatMicros(span.duration))}</span></div>`;
  const classes = [row.error ? 'err' : '', open ? 'found' : ''].filter(Boolean).join(' ');
  return `<details id="span-${escapeHtml(span.spanID)}"${classes ? ` class="${classes}"` : ''}${open ? ' open' : ''}><summary class="row">${name}${bar}</summary>${spanDetail(row, trace)}</details>`;
}

function spanDetail(row: TreeRow, trace: JaegerTrace): string {
  const { span } = row;
  const parent = span.references.find((r) => r.refType === 'CHILD_OF');
  const links = span.references.filter((r) => r.refType === 'FOLLOWS_FROM');
  const overview = kvTable([
    ['span id', escapeHtml(span.spanID)],
    [
      'parent',
      parent
        ? `${refLink(parent.traceID, parent.spanID, trace.traceID)}${row.orphan ? ' (not in this trace)' : ''}`
        : '(root)',
    ],
    ['start', `+${escapeHtml(formatMicros(row.offset))} · ${escapeHtml(formatTime(span.startTime))}`],
    ['duration', escapeHtml(formatMicros(span.duration))],
    ...(row.errorMessage
      ? ([['error', `<b style="color:#b91c1c">${escapeHtml(row.errorMessage)}</b>`]] as const)
      : []),
    ...links.map((l) => ['link', refLink(l.traceID, l.spanID, trace.traceID)] as const),
  ]);
  const process = trace.processes[span.processID];
  const sections = [
    section('Span', overview),
    section('Attributes', tagTable(span.tags)),
    span.logs.length > 0 ? section('Events', span.logs.map((log) => eventBlock(log, span)).join('')) : '',
    process ? section(`Process: ${escapeHtml(process.serviceName)}`, tagTable(process.tags)) : '',
  ];
  return `<div class="detail">${sections.join('')}</div>`;
}

function eventBlock(log: JaegerLog, span: JaegerSpan): string {
  const name = log.fields.find((f) => f.key === 'event')?.value ?? 'log';
  const fields = log.fields.filter((f) => f.key !== 'event' && f.key !== 'exception.stacktrace');
  const stack = log.fields.find((f) => f.key === 'exception.stacktrace')?.value;
  const exception = name === 'exception';
  return `<div class="event${exception ? ' exc' : ''}"><b>${escapeHtml(name)}</b> <span class="muted">+${escapeHtml(formatMicros(log.timestamp - span.startTime))} into the span</span>${tagTable(fields)}${stack ? `<pre>${escapeHtml(stack)}</pre>` : ''}</div>`;
}

function refLink(traceId: string, spanId: string, current: string): string {
  const href = `${traceId === current ? '' : `/trace/${traceId}`}?uiFind=${spanId}#span-${spanId}`;
  const text = traceId === current ? spanId : `${traceId} / ${spanId}`;
  return `<a class="mono" href="${escapeHtml(href)}">${escapeHtml(text)}</a>`;
}

function tagTable(tags: JaegerTag[]): string {
  if (tags.length === 0) return '<span class="muted">none</span>';
  return kvTable(tags.map((t) => [escapeHtml(t.key), escapeHtml(t.value)] as const));
}

/** Rows of already escaped HTML. */
function kvTable(rows: readonly (readonly [string, string])[]): string {
  return `<table class="kv">${rows.map(([k, v]) => `<tr><td>${k}</td><td>${v}</td></tr>`).join('')}</table>`;
}

function section(title: string, body: string): string {
  return `<div><h3>${title}</h3>${body}</div>`;
}
