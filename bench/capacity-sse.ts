// Memory per open SSE stream (issue 33): a real jobs API process (the one
// that serves GET /v1/jobs/{id}/events) holding N status streams, beside the
// bare baseline in the same run: a bare node:http server holding N
// text/event-stream responses (headers, one event, a keep-alive timer each).
// Each variant is a fresh process: a few streams opened and closed first
// (JIT, the feed's Redis subscriber, the slots), its RSS read (VmRSS, once it
// settles), then N streams opened (one posting each, as a client watches the
// posting it sent) and RSS read again once every stream has its first event,
// for each N in turn; the streams are closed and the process stopped.
// Clients and servers are on 127.0.0.1 only.
import { randomBytes } from 'node:crypto';
import { type ClientRequest, request } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { startBenchPlatform } from './bench-platform.ts';
import { benchApiKey } from './footprint-load.ts';
import { type ProcessKind, rssBytes, serviceProcess, startProcess } from './footprint-processes.ts';
import { postingBody } from './jobs-targets.ts';

/** Streams opened at once while a step is set up (a client's connection burst, bounded). */
const OPENING = 20;
const WARM_UP_STREAMS = 50;
const ESTABLISH_TIMEOUT_MS = 120_000;
const SETTLE_TIMEOUT_MS = 15_000;

/** The bare baseline: a node:http server holding every text/event-stream response it is asked for. */
const bareSse: ProcessKind = {
  name: 'bare node:http SSE server',
  args: [
    '--input-type=module',
    '-e',
    `import { createServer } from 'node:http';
const server = createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store' });
  res.write('id: 1\\nevent: status\\ndata: {"jobId":"' + req.url.split('/')[3] + '","status":"processing","matchCount":null}\\n\\n');
  const keepAlive = setInterval(() => res.write(': keep-alive\\n\\n'), 15000);
  req.once('close', () => clearInterval(keepAlive));
});
server.listen(0, '127.0.0.1', () => process.send({ type: 'started', port: server.address().port }));`,
  ],
};

export interface SseMemoryRow {
  process: string;
  streams: number;
  /** RSS with no stream open (after the warm-up), and with `streams` open, in bytes. */
  rssBefore: number;
  rssAfter: number;
  bytesPerStream: number;
}

interface Stream {
  request: ClientRequest;
}

/** Opens one stream and resolves once its first event arrived. */
function openStream(port: number, postingId: string, key: string): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1',
      port,
      path: `/v1/jobs/${postingId}/events`,
      agent: false,
      headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
    });
    req.once('error', reject);
    req.once('response', (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`GET /v1/jobs/${postingId}/events answered ${res.statusCode}`));
        return;
      }
      let seen = '';
      const onData = (chunk: Buffer) => {
        seen += chunk.toString();
        if (seen.includes('event: status')) {
          res.off('data', onData);
          res.resume();
          resolve({ request: req });
        }
      };
      res.on('data', onData);
    });
    req.end();
  });
}

/** Opens a stream for each posting, OPENING at a time, within ESTABLISH_TIMEOUT_MS. */
async function openStreams(port: number, postings: string[], key: string, into: Stream[]): Promise<void> {
  const deadline = Date.now() + ESTABLISH_TIMEOUT_MS;
  let next = 0;
  const opener = async () => {
    while (next < postings.length) {
      if (Date.now() > deadline) throw new Error(`streams not established in ${ESTABLISH_TIMEOUT_MS} ms`);
      into.push(await openStream(port, postings[next++]!, key));
    }
  };
  await Promise.all(Array.from({ length: OPENING }, opener));
}

function closeStreams(streams: Stream[]): void {
  for (const s of streams.splice(0)) s.request.destroy();
}

/** RSS once two readings 250 ms apart differ by less than 1 MB (or the deadline's reading). */
async function settledRss(pid: number): Promise<number> {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  let last = await rssBytes(pid);
  for (;;) {
    await delay(250);
    const now = await rssBytes(pid);
    if (Math.abs(now - last) < 1e6 || Date.now() > deadline) return now;
    last = now;
  }
}

/** One process: warm up, RSS, then for each count (cumulative) open the streams and read RSS. */
async function measureStreams(
  kind: ProcessKind,
  counts: number[],
  postings: { warm: string[]; watched: string[] },
  key: string,
): Promise<SseMemoryRow[]> {
  const child = await startProcess(kind);
  const streams: Stream[] = [];
  try {
    await openStreams(child.port, postings.warm, key, streams);
    closeStreams(streams);
    const rssBefore = await settledRss(child.pid);
    const rows: SseMemoryRow[] = [];
    for (const count of counts) {
      await openStreams(child.port, postings.watched.slice(streams.length, count), key, streams);
      const rssAfter = await settledRss(child.pid);
      rows.push({
        process: kind.name,
        streams: count,
        rssBefore,
        rssAfter,
        bytesPerStream: (rssAfter - rssBefore) / count,
      });
    }
    return rows;
  } finally {
    closeStreams(streams);
    await child.stop();
  }
}

/** POST /v1/jobs `count` times (8 at a time): the postings the streams watch. */
async function createPostings(port: number, key: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  const one = async () => {
    while (ids.length < count) {
      const res = await fetch(`http://127.0.0.1:${port}/v1/jobs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: postingBody,
      });
      const body = (await res.json()) as { id?: string };
      if (res.status !== 202 || !body.id) throw new Error(`POST /v1/jobs answered ${res.status}`);
      ids.push(body.id);
    }
  };
  await Promise.all(Array.from({ length: 8 }, one));
  return ids.slice(0, count);
}

/**
 * Memory per open SSE stream: the jobs API and the bare server, each holding
 * `counts` streams in turn (ascending; the largest ≤ SSE_MAX_STREAMS_PER_KEY's bound, 10,000).
 */
export async function sseStreamMemory(counts: number[]): Promise<SseMemoryRow[]> {
  const most = Math.max(...counts);
  const suffix = randomBytes(4).toString('hex');
  const platform = await startBenchPlatform(['jobs'], 'sse', suffix);
  try {
    const api = (prefix: string) =>
      serviceProcess('jobs', 'api', {
        ...platform.env('jobs', `bench:sse${suffix}:${prefix}`),
        RATE_LIMIT_MAX: '1000000',
        // Memory is measured, not latency: a busy machine's event-loop delay must not shed the streams.
        LOAD_SHED_EVENT_LOOP_DELAY_MS: '60000',
        SSE_MAX_STREAMS_PER_KEY: String(most + WARM_UP_STREAMS),
      });
    // A first process migrates the database and writes the postings; the measured ones start fresh.
    const setup = await startProcess(api('setup'));
    let key: string;
    let postings: string[];
    try {
      key = await benchApiKey(platform.databases[0]!);
      postings = await createPostings(setup.port, key, most + WARM_UP_STREAMS);
    } finally {
      await setup.stop();
    }
    const watched = { warm: postings.slice(most), watched: postings.slice(0, most) };
    const rows: SseMemoryRow[] = [];
    for (const kind of [bareSse, api('streams')])
      rows.push(...(await measureStreams(kind, counts, watched, key)));
    return rows;
  } finally {
    await platform.close();
  }
}
