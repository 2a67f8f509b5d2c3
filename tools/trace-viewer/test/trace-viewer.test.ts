import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { freePort } from '@hireflow/testing';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KnownTrace, LINKED, recordKnownTrace, T0 } from '../src/known-trace.fixture.ts';
import { oneSpanTrace } from '../src/testing.ts';
import { startTraceViewer, type TraceViewer } from '../src/viewer.ts';

const root = resolve(import.meta.dirname, '../../..');

async function exportWith(exporter: JsonExporter | ProtobufExporter, spans: ReadableSpan[]): Promise<void> {
  const result = await new Promise<{ code: number; error?: Error }>((done) => exporter.export(spans, done));
  await exporter.shutdown();
  if (result.code !== 0) throw result.error ?? new Error('export failed');
}

const us = (ms: number) => T0 * 1_000_000 + ms * 1000;
const str = (key: string, value: string) => ({ key, type: 'string', value });
const scopeTags = [str('otel.scope.name', 'hireflow-test'), str('otel.scope.version', '0.1.0')];

/** What Jaeger's query API answers for the known trace. */
function expectedTrace(known: KnownTrace) {
  const { traceId, ids } = known;
  const childOf = (spanID: string) => ({ refType: 'CHILD_OF', traceID: traceId, spanID });
  const span = (fields: Record<string, unknown>) => ({
    traceID: traceId,
    logs: [],
    warnings: null,
    flags: 1,
    ...fields,
  });
  return {
    traceID: traceId,
    warnings: null,
    processes: {
      p1: { serviceName: 'jobs', tags: [str('service.version', '1.0.0')] },
      p2: { serviceName: 'matching', tags: [str('service.version', '1.0.0')] },
      p3: { serviceName: 'notifications', tags: [str('service.version', '1.0.0')] },
    },
    spans: [
      span({
        spanID: ids.root,
        operationName: 'POST /v1/jobs',
        references: [],
        startTime: us(0),
        duration: 40_000,
        processID: 'p1',
        tags: [
          str('http.request.method', 'POST'),
          { key: 'http.response.status_code', type: 'int64', value: 202 },
          { key: 'hireflow.ratio', type: 'float64', value: 0.25 },
          { key: 'hireflow.cached', type: 'bool', value: false },
          { key: 'hireflow.offset', type: 'int64', value: -5 },
          str('hireflow.skills', '["node","postgres"]'),
          ...scopeTags,
          str('span.kind', 'server'),
        ],
      }),
      span({
        spanID: ids.insert,
        operationName: 'INSERT hireflow_jobs.job',
        references: [childOf(ids.root)],
        startTime: us(2),
        duration: 3500,
        processID: 'p1',
        tags: [str('db.system.name', 'postgresql'), ...scopeTags, str('span.kind', 'client')],
      }),
      span({
        spanID: ids.consume,
        operationName: 'job-events process',
        references: [
          childOf(ids.root),
          { refType: 'FOLLOWS_FROM', traceID: LINKED.traceId, spanID: LINKED.spanId },
        ],
        startTime: us(60),
        duration: 30_000,
        processID: 'p2',
        tags: [...scopeTags, str('span.kind', 'consumer')],
      }),
      span({
        spanID: ids.score,
        operationName: 'score <candidates>',
        references: [childOf(ids.consume)],
        startTime: us(61),
        duration: 3000,
        processID: 'p2',
        tags: [str('hireflow.note', '<b>&"quoted"</b>'), ...scopeTags, str('span.kind', 'internal')],
      }),
      span({
        spanID: ids.smtp,
        operationName: 'smtp send',
        references: [childOf(ids.consume)],
        startTime: us(70),
        duration: 15_000,
        processID: 'p3',
        tags: [
          ...scopeTags,
          str('span.kind', 'client'),
          str('otel.status_code', 'ERROR'),
          str('otel.status_description', 'connect ECONNREFUSED 127.0.0.1:1025'),
          { key: 'error', type: 'bool', value: true },
        ],
        logs: [
          {
            timestamp: us(84),
            fields: [
              str('event', 'exception'),
              str('exception.type', 'Error'),
              str('exception.message', 'connect ECONNREFUSED 127.0.0.1:1025'),
              {
                key: 'exception.stacktrace',
                type: 'string',
                value: expect.stringContaining('Error: connect ECONNREFUSED'),
              },
            ],
          },
        ],
      }),
    ],
  };
}

/** A small OTLP/JSON trace of one span. */
const post = (viewer: TraceViewer, body: string | Uint8Array, type: string) =>
  fetch(`${viewer.otlpEndpoint}/v1/traces`, { method: 'POST', headers: { 'content-type': type }, body });

describe('the trace viewer, fed by the real OTLP exporters', () => {
  let known: KnownTrace;
  let protobufViewer: TraceViewer;
  let jsonViewer: TraceViewer;

  beforeAll(async () => {
    known = await recordKnownTrace();
    protobufViewer = await startTraceViewer({ otlpPort: 0, uiPort: 0 });
    jsonViewer = await startTraceViewer({ otlpPort: 0, uiPort: 0 });
    const url = (viewer: TraceViewer) => `${viewer.otlpEndpoint}/v1/traces`;
    await exportWith(
      new ProtobufExporter({ url: url(protobufViewer), compression: 'gzip' } as ConstructorParameters<
        typeof ProtobufExporter
      >[0]),
      known.spans,
    );
    await exportWith(new JsonExporter({ url: url(jsonViewer) }), known.spans);
  });

  afterAll(async () => {
    await protobufViewer?.stop();
    await jsonViewer?.stop();
  });

  it('binds loopback on the ports it was given (0: free ones) and reports them', () => {
    expect(protobufViewer.otlpEndpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(protobufViewer.uiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(protobufViewer.uiUrl).not.toBe(jsonViewer.uiUrl);
  });

  it('answers /api/traces/{id} in the shape of Jaeger’s query API (protobuf, gzipped)', async () => {
    const res = await fetch(`${protobufViewer.uiUrl}/api/traces/${known.traceId}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      data: [expectedTrace(known)],
      total: 1,
      limit: 0,
      offset: 0,
      errors: null,
    });
  });

  it('gives the same trace from OTLP/JSON as from protobuf', async () => {
    const fromJson = await (await fetch(`${jsonViewer.uiUrl}/api/traces/${known.traceId}`)).json();
    const fromProtobuf = await (await fetch(`${protobufViewer.uiUrl}/api/traces/${known.traceId}`)).json();
    expect(fromJson).toEqual(fromProtobuf);
    expect(jsonViewer.traces()).toEqual(protobufViewer.traces());
  });

  it('shows the waterfall at /trace/{id}: every span and service, escaped, the error marked', async () => {
    const res = await fetch(`${protobufViewer.uiUrl}/trace/${known.traceId}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await res.text();
    for (const name of ['POST /v1/jobs', 'INSERT hireflow_jobs.job', 'job-events process', 'smtp send']) {
      expect(html).toContain(`<span class="op">${name}</span>`);
    }
    expect(html).toContain('<span class="op">score &#60;candidates&#62;</span>');
    for (const service of ['jobs', 'matching', 'notifications'])
      expect(html).toContain(`<span class="svc">${service}</span>`);
    expect(html).toContain('&#60;b&#62;&#38;&#34;quoted&#34;&#60;/b&#62;');
    expect(html).not.toContain('<b>&"quoted"</b>');
    expect(html).not.toContain('<candidates>');
    expect(html).toMatch(new RegExp(`<details id="span-${known.ids.smtp}" class="err">`));
    expect(html).toContain('connect ECONNREFUSED 127.0.0.1:1025');
    expect(html).not.toMatch(/(src|href)="https?:/);
  });

  it('shows only the story’s steps on ?story=1, with the way back to every span', async () => {
    const all = await (await fetch(`${protobufViewer.uiUrl}/trace/${known.traceId}`)).text();
    expect(all).toContain(`<a href="/trace/${known.traceId}?story=1">the story's steps only</a>`);
    const html = await (await fetch(`${protobufViewer.uiUrl}/trace/${known.traceId}?story=1`)).text();
    expect(html).toContain('<span class="op">POST /v1/jobs</span>');
    expect(html).not.toContain('<span class="op">INSERT hireflow_jobs.job</span>');
    expect(html).toMatch(/Spans <b>1<\/b> of \d+: the story's steps/);
    expect(html).toContain(`<a href="/trace/${known.traceId}">show all spans</a>`);
  });

  it('opens the span Jaeger’s uiFind names', async () => {
    const html = await (
      await fetch(`${protobufViewer.uiUrl}/trace/${known.traceId}?uiFind=${known.ids.insert}`)
    ).text();
    expect(html).toContain(`<details id="span-${known.ids.insert}" class="found" open>`);
  });

  it('lists recent traces at / with root span, services, span count and errors, linking to each', async () => {
    const html = await (await fetch(`${protobufViewer.uiUrl}/`)).text();
    expect(html).toContain(`<a href="/trace/${known.traceId}">POST /v1/jobs</a>`);
    expect(html).toContain('<td class="num">5</td>');
    expect(html).toContain('<tr class="error">');
    const filtered = await (await fetch(`${protobufViewer.uiUrl}/search?service=notifications`)).text();
    expect(filtered).toContain(`/trace/${known.traceId}`);
    const other = await (await fetch(`${protobufViewer.uiUrl}/search?service=media`)).text();
    expect(other).not.toContain(`/trace/${known.traceId}`);
    const lookup = await fetch(`${protobufViewer.uiUrl}/search?traceId=${known.traceId}`, {
      redirect: 'manual',
    });
    expect(lookup.status).toBe(302);
    expect(lookup.headers.get('location')).toBe(`/trace/${known.traceId}`);
  });

  it('serves Jaeger’s /api/services, /api/services/{s}/operations and /api/traces?service=&limit=', async () => {
    const ui = protobufViewer.uiUrl;
    expect(await (await fetch(`${ui}/api/services`)).json()).toEqual({
      data: ['jobs', 'matching', 'notifications'],
      total: 3,
      limit: 0,
      offset: 0,
      errors: null,
    });
    const jaegerData = async (path: string) =>
      ((await (await fetch(`${ui}${path}`)).json()) as { data: unknown[] }).data;
    expect(await jaegerData('/api/services/matching/operations')).toEqual([
      'job-events process',
      'score <candidates>',
    ]);
    const found = (await jaegerData('/api/traces?service=matching&limit=1')) as { traceID: string }[];
    expect(found.map((t) => t.traceID)).toEqual([known.traceId]);
    expect(await jaegerData('/api/traces?service=media')).toEqual([]);
    expect((await fetch(`${ui}/api/traces?limit=many`)).status).toBe(400);
  });

  it('answers an unknown trace as Jaeger does: 404 with errors; a bad id 400', async () => {
    const unknown = await fetch(`${protobufViewer.uiUrl}/api/traces/${'1'.repeat(32)}`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({
      data: [],
      total: 0,
      limit: 0,
      offset: 0,
      errors: [{ code: 404, msg: 'trace not found' }],
    });
    expect((await fetch(`${protobufViewer.uiUrl}/api/traces/not-hex`)).status).toBe(400);
    const page = await fetch(`${protobufViewer.uiUrl}/trace/${'1'.repeat(32)}`);
    expect(page.status).toBe(404);
    expect(await page.text()).toContain('reload in a moment');
  });

  it('finds a 64-bit trace id given without its zero half, as Jaeger does', async () => {
    const short = oneSpanTrace(1);
    const padded = `${'0'.repeat(16)}${short.traceId.slice(16)}`;
    await post(jsonViewer, short.body.replace(short.traceId, padded), 'application/json');
    expect((await fetch(`${jsonViewer.uiUrl}/api/traces/${padded.slice(16)}`)).status).toBe(200);
  });
});

describe('the OTLP receiver', () => {
  let viewer: TraceViewer;
  beforeAll(async () => {
    viewer = await startTraceViewer({ otlpPort: 0, uiPort: 0, maxTraces: 2 });
  });
  afterAll(async () => viewer?.stop());

  it('answers 200 with an empty ExportTraceServiceResponse in the request’s encoding', async () => {
    const json = await post(viewer, oneSpanTrace(10).body, 'application/json');
    expect(json.status).toBe(200);
    expect(json.headers.get('content-type')).toBe('application/json');
    expect(await json.json()).toEqual({});
    const protobuf = await post(viewer, new Uint8Array(), 'application/x-protobuf');
    expect(protobuf.status).toBe(200);
    expect(protobuf.headers.get('content-type')).toBe('application/x-protobuf');
    expect((await protobuf.arrayBuffer()).byteLength).toBe(0);
  });

  it('keeps only the most recent traces: the oldest is evicted past the bound', async () => {
    const traces = [oneSpanTrace(21), oneSpanTrace(22), oneSpanTrace(23)];
    for (const t of traces) expect((await post(viewer, t.body, 'application/json')).status).toBe(200);
    expect(viewer.traces().map((t) => t.traceId)).toEqual([traces[2]!.traceId, traces[1]!.traceId]);
    expect((await fetch(`${viewer.uiUrl}/api/traces/${traces[0]!.traceId}`)).status).toBe(404);
    const list = await (await fetch(`${viewer.uiUrl}/?single=1`)).text();
    expect(list).not.toContain(traces[0]!.traceId);
    expect(list).toContain(traces[2]!.traceId);
    // By default the list leaves out one-span traces (the services' background polling).
    const byDefault = await (await fetch(`${viewer.uiUrl}/`)).text();
    expect(byDefault).not.toContain(traces[2]!.traceId);
    expect(byDefault).toContain('2 single-span traces hidden');
  });

  it('answers 400 with a google.rpc.Status for a body it cannot decode', async () => {
    const json = await post(viewer, '{"resourceSpans": 7}', 'application/json');
    expect(json.status).toBe(400);
    expect(await json.json()).toEqual({ code: 3, message: 'resourceSpans: must be an array' });
    const protobuf = await post(viewer, new TextEncoder().encode('not a protobuf'), 'application/x-protobuf');
    expect(protobuf.status).toBe(400);
    expect(Buffer.from(await protobuf.arrayBuffer()).toString()).toContain('invalid protobuf');
    const badGzip = await fetch(`${viewer.otlpEndpoint}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: 'not gzip',
    });
    expect(badGzip.status).toBe(400);
  });

  it('answers 415 to other content types, 405 to other methods, 404 elsewhere', async () => {
    expect((await post(viewer, 'x', 'text/plain')).status).toBe(415);
    expect((await fetch(`${viewer.otlpEndpoint}/v1/traces`)).status).toBe(405);
    expect((await fetch(`${viewer.otlpEndpoint}/v1/metrics`, { method: 'POST' })).status).toBe(404);
  });

  it('reports spans with invalid ids as a partial success and keeps the others', async () => {
    const good = JSON.parse(oneSpanTrace(30).body);
    good.resourceSpans[0].scopeSpans[0].spans.push({ traceId: 'abc', spanId: 'def', name: 'bad' });
    const res = await post(viewer, JSON.stringify(good), 'application/json');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      partialSuccess: { rejectedSpans: '1', errorMessage: '1 spans with an invalid trace or span id' },
    });
  });
});

/** Runs what `pnpm trace` runs. */
function traceCli(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [join(root, 'tools/trace-viewer/src/cli/trace.ts'), ...args], {
    cwd: root,
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk;
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done) =>
    child.once('close', (code) => done({ code, stdout, stderr })),
  );
}

describe('pnpm trace <traceId>', () => {
  let known: KnownTrace;
  let viewer: TraceViewer;
  beforeAll(async () => {
    known = await recordKnownTrace();
    viewer = await startTraceViewer({ otlpPort: 0, uiPort: 0 });
    await exportWith(new ProtobufExporter({ url: `${viewer.otlpEndpoint}/v1/traces` }), known.spans);
  });
  afterAll(async () => viewer?.stop());

  it('is the root package script', async () => {
    const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
    expect(pkg.scripts.trace).toBe('node tools/trace-viewer/src/cli/trace.ts');
  });

  it('prints the trace as an indented tree', async () => {
    const run = await traceCli([known.traceId], { JAEGER_QUERY_URL: viewer.uiUrl });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n').slice(1, 10)).toEqual([
      'jobs: POST /v1/jobs · 5 spans · 3 services (jobs, matching, notifications) · 90.0 ms · 1 error',
      '',
      '    offset    duration',
      '     +0 ms     40.0 ms  jobs  POST /v1/jobs',
      '  +2.00 ms     3.50 ms  ├─ jobs  INSERT hireflow_jobs.job',
      '  +60.0 ms     30.0 ms  └─ matching  job-events process',
      '  +61.0 ms     3.00 ms     ├─ matching  score <candidates>',
      '  +70.0 ms     15.0 ms     └─ ✗ notifications  smtp send  (connect ECONNREFUSED 127.0.0.1:1025)',
      '',
    ]);
  });

  it('exits 1 with a clear message for an unknown trace', async () => {
    const run = await traceCli(['f'.repeat(32)], { JAEGER_QUERY_URL: viewer.uiUrl });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`trace ${'f'.repeat(32)} not found at ${viewer.uiUrl}`);
  });

  it('exits 1 saying what to do when no viewer answers', async () => {
    const closed = await freePort();
    const run = await traceCli([known.traceId], { JAEGER_QUERY_URL: `http://127.0.0.1:${closed}` });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`cannot reach a trace viewer at http://127.0.0.1:${closed} (ECONNREFUSED)`);
  });

  it('refuses a bad trace id (64) and a bad JAEGER_QUERY_URL (78)', async () => {
    const bad = await traceCli(['not-a-trace'], { JAEGER_QUERY_URL: viewer.uiUrl });
    expect(bad.code).toBe(64);
    expect(bad.stderr).toContain('usage: pnpm trace <traceId>');
    const badUrl = await traceCli([known.traceId], { JAEGER_QUERY_URL: 'jaeger:16686' });
    expect(badUrl.code).toBe(78);
    expect(badUrl.stderr).toContain('JAEGER_QUERY_URL:');
  });
});
