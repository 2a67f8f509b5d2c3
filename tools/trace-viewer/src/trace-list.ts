import { escapeHtml, formatTime, page, serviceChip } from './html.ts';
import { formatMicros } from './span-tree.ts';
import type { TraceSummary } from './store.ts';

export interface ListView {
  traces: TraceSummary[];
  /** Single-span traces left out (background polling), unless showSingle. */
  hiddenSingleSpan: number;
  showSingle: boolean;
  /** Every service the viewer knows, for the filter. */
  services: string[];
  service: string | undefined;
  colourOf: (service: string) => string;
  otlpEndpoint: string;
  kept: { traces: number; maxTraces: number };
}

/** Recent traces, newest first, each linking to its waterfall. */
export function traceListPage(view: ListView): string {
  const { traces, colourOf } = view;
  const href = (service: string | undefined, showSingle: boolean) => {
    const query = new URLSearchParams();
    if (service) query.set('service', service);
    if (showSingle) query.set('single', '1');
    return `/search${query.size > 0 ? `?${query}` : ''}`;
  };
  const filter = (service: string | undefined, label: string) =>
    `<a class="chip${view.service === service ? ' on' : ''}" href="${escapeHtml(href(service, view.showSingle))}">${service ? `<i style="background:${colourOf(service)}"></i>` : ''}${escapeHtml(label)}</a>`;
  const filters =
    view.services.length > 0
      ? `<div class="filters">${filter(undefined, 'all services')}${view.services.map((s) => filter(s, s)).join('')}</div>`
      : '';
  const longest = Math.max(1, ...traces.map((t) => Number(t.durationNanos / 1000n)));
  const rows = traces
    .map((t) => {
      const micros = Number(t.durationNanos / 1000n);
      const href = `/trace/${t.traceId}`;
      return `<tr${t.errorCount > 0 ? ' class="error"' : ''}><td class="mono">${escapeHtml(formatTime(Number(t.startNanos / 1000n)))}</td><td>${serviceChip(t.rootService, colourOf(t.rootService))} <a href="${href}">${escapeHtml(t.rootName)}</a></td><td>${t.services.map((s) => serviceChip(s, colourOf(s))).join('')}</td><td class="num">${t.spanCount}</td><td class="num"><span class="spark" style="width:${Math.max(2, Math.round((micros / longest) * 80))}px"></span>${escapeHtml(formatMicros(micros))}</td><td class="num">${t.errorCount > 0 ? `<span class="badge">${t.errorCount}</span>` : ''}</td><td><a class="mono muted" href="${href}">${t.traceId.slice(0, 12)}…</a></td></tr>`;
    })
    .join('');
  const single = view.showSingle
    ? `<span>Single-span traces shown: <a href="${escapeHtml(href(view.service, false))}">hide them</a></span>`
    : view.hiddenSingleSpan > 0
      ? `<span>${view.hiddenSingleSpan} single-span traces hidden (background polling): <a href="${escapeHtml(href(view.service, true))}">show them</a></span>`
      : '';
  const empty =
    view.hiddenSingleSpan > 0
      ? '<div class="empty">Only single-span traces so far (shown on request, above). A request&#39;s trace has many spans: send one and reload.</div>'
      : `<div class="empty">No traces yet. Services send them to <code>${escapeHtml(view.otlpEndpoint)}</code> (OTLP/HTTP; <code>pnpm start</code> points them here), in batches every few seconds.</div>`;
  const table = `<div class="card">${
    traces.length > 0
      ? `<table class="list"><tr><th>Started</th><th>Root span</th><th>Services</th><th class="num">Spans</th><th class="num">Duration</th><th class="num">Errors</th><th>Trace</th></tr>${rows}</table>`
      : empty
  }</div>`;
  const heading = `<h1>Recent traces${view.service ? ` <span class="svc">of ${escapeHtml(view.service)}</span>` : ''}</h1><div class="meta"><span>Showing <b>${traces.length}</b>, newest first</span><span>Kept in memory: <b>${view.kept.traces}</b> of at most ${view.kept.maxTraces} traces; gone when the viewer stops</span><span>OTLP in: <code>${escapeHtml(view.otlpEndpoint)}/v1/traces</code></span>${single}</div>`;
  return page('Hireflow traces', `${heading}${filters}${table}`);
}
