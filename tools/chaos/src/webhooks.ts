// The soak's webhook endpoints (docs/chaos.md, "Webhooks"): a flaky one that
// fails some requests, subscribed to every type, and a slow one subscribed to
// the postings' and uploads' (not the candidates': at four slots of ~0.7 s it
// takes ~5.7 deliveries a second, and a 10,000-event run announces ~7,000
// candidates); both of the workload's tenant; and the count of what they received against
// what should have arrived: nothing lost, every copy of one event with the
// same webhook-id.
import { readBody, startLocalServer } from '@hireflow/testing';
import pg from 'pg';
import { now } from './clock.ts';
import type { Random } from './random.ts';

export const WEBHOOK_ENDPOINTS = ['flaky', 'slow'] as const;
export type ChaosEndpoint = (typeof WEBHOOK_ENDPOINTS)[number];
const TYPES = ['posting.matched', 'posting.closed', 'upload.ready', 'upload.failed', 'candidate.registered'];
/** The types each endpoint subscribes to. */
export const ENDPOINT_TYPES: Record<ChaosEndpoint, readonly string[]> = {
  flaky: TYPES,
  slow: TYPES.filter((type) => type !== 'candidate.registered'),
};
const FACT_KIND_TYPES: Record<string, readonly string[]> = {
  candidate: ['candidate.registered'],
  upload: ['upload.ready', 'upload.failed'],
  closed: ['posting.closed'],
  matched: ['posting.matched'],
};
/** Whether an endpoint subscribes to a fact's kind of event (`factOf`). */
function subscribes(endpoint: ChaosEndpoint, fact: string): boolean {
  const kinds = FACT_KIND_TYPES[fact.split(':')[0]!] ?? [];
  return kinds.some((type) => ENDPOINT_TYPES[endpoint].includes(type));
}

/** One request that reached an endpoint, and what it was answered. */
export interface WebhookArrival {
  endpoint: ChaosEndpoint;
  webhookId: string;
  /** What the delivery is about (`factOf`). */
  fact: string;
  /** The status answered; 0: the connection was dropped instead. */
  answered: number;
  at: number;
}

/** A delivery row of jobs' database, for one of the soak's endpoints. */
export interface WebhookRow {
  endpoint: ChaosEndpoint;
  webhookId: string;
  eventId: string;
  fact: string;
  status: string;
}

export interface WebhookCount {
  /** (endpoint, fact) pairs that must have been answered 2xx: every delivery row's, and each accepted candidate's and upload's. */
  expected: number;
  delivered: number;
  lost: number;
  /** Requests after the first 2xx of their webhook-id (a redelivery the receiver deduplicates by its id). */
  sameIdCopies: number;
  /** More than one webhook-id for one (endpoint, event): a delivery made twice. Fails the run. */
  differentIdCopies: number;
  /** More than one event about one fact at one endpoint (the workload's SNS duplicates under a new event id): new deliveries, counted apart. */
  newEventCopies: number;
  /** The same, by kind of fact (`candidate`, `upload`, `closed`, `matched`). */
  newEventCopiesByKind: Record<string, number>;
  /** Failed answers (5xx, dropped connections) that were retried. */
  failedAttempts: number;
  byEndpoint: Record<string, { expected: number; delivered: number; requests: number }>;
  /** The first lost ones, `endpoint fact`. */
  lostList: string[];
}

/** What a delivery is about: one candidate, one upload, one posting's close, one computation of a posting's matches. */
export function factOf(body: string): string {
  try {
    const { type, data } = JSON.parse(body) as { type: string; data: Record<string, unknown> };
    if (type === 'candidate.registered') return `candidate:${data.candidateId}`;
    if (type === 'upload.ready' || type === 'upload.failed') return `upload:${data.uploadId}`;
    if (type === 'posting.closed') return `closed:${data.jobId}`;
    if (type === 'posting.matched') return `matched:${data.jobId}@${data.computedAt}`;
    return `${type}:?`;
  } catch {
    return 'unreadable';
  }
}

/**
 * The count, from what arrived, jobs' delivery rows, and the facts the
 * history says happened (accepted candidates and uploads).
 */
export function countWebhooks(input: {
  arrivals: WebhookArrival[];
  rows: WebhookRow[];
  expectedFacts: string[];
}): WebhookCount {
  const ok = (status: number) => status >= 200 && status < 300;
  const byEndpoint: WebhookCount['byEndpoint'] = {};
  const lostList: string[] = [];
  let expected = 0;
  let delivered = 0;
  const eventOf = new Map(input.rows.map((r) => [r.webhookId, r.eventId]));
  let sameIdCopies = 0;
  let differentIdCopies = 0;
  let newEventCopies = 0;
  const newEventCopiesByKind: Record<string, number> = {};
  for (const endpoint of WEBHOOK_ENDPOINTS) {
    const arrivals = input.arrivals.filter((a) => a.endpoint === endpoint);
    const answered = new Set(arrivals.filter((a) => ok(a.answered)).map((a) => a.fact));
    const facts = new Set([
      ...input.expectedFacts.filter((fact) => subscribes(endpoint, fact)),
      ...input.rows.filter((r) => r.endpoint === endpoint).map((r) => r.fact),
    ]);
    let got = 0;
    for (const fact of facts) {
      if (answered.has(fact)) got++;
      else if (lostList.length < 20) lostList.push(`${endpoint} ${fact}`);
    }
    expected += facts.size;
    delivered += got;
    byEndpoint[endpoint] = { expected: facts.size, delivered: got, requests: arrivals.length };

    const okById = new Map<string, number>();
    const idsByEvent = new Map<string, Set<string>>();
    const eventsByFact = new Map<string, Set<string>>();
    for (const a of arrivals) {
      if (ok(a.answered)) okById.set(a.webhookId, (okById.get(a.webhookId) ?? 0) + 1);
      // A webhook-id no row has would be a delivery the database does not know: its own event.
      const event = eventOf.get(a.webhookId) ?? `unknown:${a.webhookId}`;
      idsByEvent.set(event, (idsByEvent.get(event) ?? new Set()).add(a.webhookId));
      eventsByFact.set(a.fact, (eventsByFact.get(a.fact) ?? new Set()).add(event));
    }
    for (const n of okById.values()) sameIdCopies += n - 1;
    for (const ids of idsByEvent.values()) differentIdCopies += ids.size - 1;
    for (const [fact, events] of eventsByFact) {
      if (events.size < 2) continue;
      newEventCopies += events.size - 1;
      const kind = fact.split(':')[0]!;
      newEventCopiesByKind[kind] = (newEventCopiesByKind[kind] ?? 0) + events.size - 1;
    }
  }
  return {
    expected,
    delivered,
    lost: expected - delivered,
    sameIdCopies,
    differentIdCopies,
    newEventCopies,
    newEventCopiesByKind,
    failedAttempts: input.arrivals.filter((a) => !ok(a.answered)).length,
    byEndpoint,
    lostList,
  };
}

/** What fails a run: a lost delivery, or one event delivered under two webhook-ids. */
export function webhookProblems(count: WebhookCount): string[] {
  const problems: string[] = [];
  if (count.lost)
    problems.push(`${count.lost} lost webhook deliveries (${count.lostList.slice(0, 3).join(', ')})`);
  if (count.differentIdCopies)
    problems.push(`${count.differentIdCopies} webhook copies of one event with a different webhook-id`);
  return problems;
}

export interface WebhookSinks {
  url: string;
  arrivals: WebhookArrival[];
  close(): Promise<void>;
}

/**
 * The two endpoints on one local server: `/flaky` answers 500 to a quarter
 * of the requests and drops the connection of a twentieth; `/slow` answers
 * 204 after 0.2–1.2 s (within the 10 s a delivery has). Seeded.
 */
export async function startWebhookSinks(random: Random): Promise<WebhookSinks> {
  const arrivals: WebhookArrival[] = [];
  const server = await startLocalServer(async (req, res) => {
    const body = (await readBody(req)).toString('utf8');
    const endpoint = req.url === '/slow' ? 'slow' : 'flaky';
    const arrival: WebhookArrival = {
      endpoint,
      webhookId: String(req.headers['webhook-id'] ?? ''),
      fact: factOf(body),
      answered: 204,
      at: now(),
    };
    arrivals.push(arrival);
    if (endpoint === 'slow') {
      setTimeout(() => res.writeHead(204).end(), random.int(200, 1200));
      return;
    }
    const draw = random.next();
    if (draw < 0.05) {
      arrival.answered = 0;
      req.socket.destroy();
    } else if (draw < 0.3) {
      arrival.answered = 500;
      res.writeHead(500).end('flaky');
    } else res.writeHead(204).end();
  });
  return { url: server.url, arrivals, close: server.close };
}

/** Registers both endpoints for the workload's tenant, through the public API, each with its types. */
export async function registerWebhookEndpoints(api: string, apiKey: string, sinks: string): Promise<void> {
  for (const endpoint of WEBHOOK_ENDPOINTS) {
    const response = await fetch(`${api}/v1/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        url: `${sinks}/${endpoint}`,
        events: ENDPOINT_TYPES[endpoint],
        description: `chaos ${endpoint}`,
      }),
    });
    if (response.status !== 201) {
      throw new Error(
        `POST /v1/webhooks (${endpoint}) answered ${response.status}: ${await response.text()}`,
      );
    }
  }
}

/** The soak's endpoints' delivery rows in jobs' database, and how many are still pending. */
export async function readWebhookRows(
  jobsDatabaseUrl: string,
): Promise<{ rows: WebhookRow[]; pending: number }> {
  const client = new pg.Client({ connectionString: jobsDatabaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{
      id: string;
      event_id: string;
      body: string;
      status: string;
      url: string;
    }>(
      `SELECT d.id, d.event_id, d.body, d.status, e.url
         FROM webhook_delivery d JOIN webhook_endpoint e ON e.id = d.endpoint_id`,
    );
    const mine = rows.flatMap((r) => {
      const endpoint = WEBHOOK_ENDPOINTS.find((name) => r.url.endsWith(`/${name}`));
      return endpoint
        ? [
            {
              endpoint,
              webhookId: `msg_${r.id}`,
              eventId: r.event_id,
              fact: factOf(r.body),
              status: r.status,
            },
          ]
        : [];
    });
    return { rows: mine, pending: mine.filter((r) => r.status === 'pending').length };
  } finally {
    await client.end();
  }
}

/** The report's section. */
export function webhookSection(count: WebhookCount): string {
  const lines = [
    '## Webhooks',
    '',
    '| endpoint | expected | delivered (2xx) | requests |',
    '| -------- | -------: | --------------: | -------: |',
    ...Object.entries(count.byEndpoint).map(
      ([name, c]) => `| ${name} | ${c.expected} | ${c.delivered} | ${c.requests} |`,
    ),
    '',
    `Lost ${count.lost}; copies after a 2xx with the same webhook-id ${count.sameIdCopies}; ` +
      `copies of one event with a different webhook-id ${count.differentIdCopies}; ` +
      `a fact announced by a second event (new id) ${count.newEventCopies} (${JSON.stringify(count.newEventCopiesByKind)}); failed answers retried ${count.failedAttempts}.`,
  ];
  if (count.lostList.length > 0) lines.push('', `Lost: ${count.lostList.join('; ')}`);
  return `${lines.join('\n')}\n`;
}
