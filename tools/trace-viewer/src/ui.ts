// The viewer's pages and query API, on Jaeger's URL shapes so that a link or
// script made for the local viewer works against the Jaeger of docker-compose.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { escapeHtml, page, serviceColours } from './html.ts';
import { toJaegerTrace } from './jaeger.ts';
import { normalizeTraceId } from './model.ts';
import { type StoredTrace, type StoreLimits, summarize, type TraceStore } from './store.ts';
import { traceListPage } from './trace-list.ts';
import { waterfallPage } from './waterfall.ts';

export interface UiContext {
  store: TraceStore;
  limits: StoreLimits;
  otlpEndpoint: string;
}

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 1000;

type Reply =
  | { kind: 'html'; status: number; body: string }
  | { kind: 'json'; status: number; body: unknown }
  | { kind: 'redirect'; location: string };

type Route = [pattern: RegExp, answer: (params: string[], url: URL, context: UiContext) => Reply];

const ROUTES: Route[] = [
  [/^\/(search)?$/, (_, url, context) => listPage(url, context)],
  [/^\/trace\/([^/]+)$/, ([id], url, context) => tracePage(id!, url, context)],
  [/^\/api\/traces\/([^/]+)$/, ([id], _, context) => traceJson(id!, context)],
  [/^\/api\/traces$/, (_, url, context) => searchJson(url, context)],
  [/^\/api\/services$/, (_, __, context) => json(200, envelope(context.store.services()))],
  [/^\/api\/services\/([^/]+)\/operations$/, ([service], _, context) => operationsJson(service!, context)],
];

export function handleUiRequest(req: IncomingMessage, res: ServerResponse, context: UiContext): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('read-only\n');
    return;
  }
  const url = new URL(req.url ?? '/', 'http://viewer');
  const path = url.pathname.replace(/(.)\/+$/, '$1');
  for (const [pattern, answer] of ROUTES) {
    const match = path.match(pattern);
    if (match) {
      send(res, answer(match.slice(1).map(decode), url, context));
      return;
    }
  }
  send(res, html(404, page('Not found', '<h1>Not found</h1><p><a href="/">Recent traces</a></p>')));
}

function operationsJson(service: string, context: UiContext): Reply {
  const names = new Set(
    spansOf(context.store.list())
      .filter((s) => s.service === service)
      .map((s) => s.name),
  );
  return json(200, envelope([...names].sort()));
}

function listPage(url: URL, context: UiContext): Reply {
  const traceId = url.searchParams.get('traceId');
  if (traceId) return { kind: 'redirect', location: `/trace/${encodeURIComponent(traceId.trim())}` };
  const service = url.searchParams.get('service') || undefined;
  const showSingle = url.searchParams.get('single') === '1';
  const all = context.store.list();
  const matching = filterByService(all, service);
  const shown = showSingle ? matching : matching.filter((t) => t.spans.size > 1);
  const services = context.store.services();
  return html(
    200,
    traceListPage({
      traces: shown.map(summarize),
      hiddenSingleSpan: matching.length - shown.length,
      showSingle,
      services,
      service,
      colourOf: serviceColours(services),
      otlpEndpoint: context.otlpEndpoint,
      kept: { traces: all.length, maxTraces: context.limits.maxTraces },
    }),
  );
}

function tracePage(rawId: string, url: URL, context: UiContext): Reply {
  const traceId = normalizeTraceId(rawId);
  const trace = traceId ? context.store.get(traceId) : undefined;
  if (!trace) {
    const why = traceId
      ? `<p>No spans of this trace have arrived (yet). Services export spans in batches, every 5 s by default: reload in a moment.</p><p class="muted">The viewer keeps the ${context.limits.maxTraces} most recent traces in memory and forgets them when it stops. Spans only come here when the services' <code>OTEL_EXPORTER_OTLP_ENDPOINT</code> is <code>${escapeHtml(context.otlpEndpoint)}</code>.</p>`
      : '<p>A trace id is up to 32 hexadecimal digits.</p>';
    return html(
      traceId ? 404 : 400,
      page(
        'Trace not found',
        `<h1>Trace <span class="mono">${escapeHtml(rawId)}</span> not found</h1>${why}<p><a href="/">Recent traces</a></p>`,
      ),
    );
  }
  const find = url.searchParams.get('uiFind') ?? undefined;
  const story = url.searchParams.get('story') === '1';
  return html(
    200,
    waterfallPage(toJaegerTrace(trace), serviceColours(context.store.services()), find, story),
  );
}

function traceJson(rawId: string, context: UiContext): Reply {
  const traceId = normalizeTraceId(rawId);
  if (!traceId) return json(400, envelope([], [{ code: 400, msg: `invalid trace id "${rawId}"` }]));
  const trace = context.store.get(traceId);
  if (!trace) return json(404, envelope([], [{ code: 404, msg: 'trace not found' }]));
  return json(200, envelope([toJaegerTrace(trace)]));
}

/** Jaeger's search, by service and operation; newest first. */
function searchJson(url: URL, context: UiContext): Reply {
  const rawLimit = url.searchParams.get('limit');
  const limit = rawLimit ? Number(rawLimit) : DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1) {
    return json(400, envelope([], [{ code: 400, msg: 'limit must be a positive whole number' }]));
  }
  const service = url.searchParams.get('service') || undefined;
  const operation = url.searchParams.get('operation') || undefined;
  let traces = filterByService(context.store.list(), service);
  if (operation)
    traces = traces.filter((t) =>
      spansOf([t]).some((s) => s.name === operation && (!service || s.service === service)),
    );
  return json(200, { ...envelope(traces.slice(0, Math.min(limit, MAX_LIMIT)).map(toJaegerTrace)), limit });
}

function filterByService(traces: StoredTrace[], service: string | undefined): StoredTrace[] {
  return service ? traces.filter((t) => spansOf([t]).some((s) => s.service === service)) : traces;
}

function spansOf(traces: StoredTrace[]) {
  return traces.flatMap((t) => [...t.spans.values()]);
}

/** The envelope every Jaeger query API answer has. */
function envelope(data: unknown[], errors: { code: number; msg: string }[] | null = null) {
  return { data, total: data.length, limit: 0, offset: 0, errors };
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

const json = (status: number, body: unknown): Reply => ({ kind: 'json', status, body });
const html = (status: number, body: string): Reply => ({ kind: 'html', status, body });

function send(res: ServerResponse, reply: Reply): void {
  if (reply.kind === 'redirect') {
    res.writeHead(302, { location: reply.location }).end();
  } else if (reply.kind === 'json') {
    res
      .writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8' })
      .end(JSON.stringify(reply.body));
  } else {
    res
      .writeHead(reply.status, {
        'content-type': 'text/html; charset=utf-8',
        // Nothing on these pages loads from anywhere, and nothing may.
        'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
      })
      .end(reply.body);
  }
}
