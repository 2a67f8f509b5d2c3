// A made-up but realistic trace (a job posting's journey through three
// services, one SMTP attempt failing), for looking at the viewer's pages.
import { randomBytes } from 'node:crypto';

/** A job posting's journey through three services, one SMTP attempt failing, in OTLP/JSON. */
export function syntheticTrace(traceId: string) {
  const t0 = BigInt(Date.now() - 5_000) * 1_000_000n;
  const ids = new Map<string, string>();
  const idOf = (name: string) => ids.get(name) ?? ids.set(name, randomBytes(8).toString('hex')).get(name)!;
  const kinds = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 };
  type Spec = [
    key: string,
    service: string,
    parent: string | null,
    name: string,
    kind: keyof typeof kinds,
    startMs: number,
    durationMs: number,
    attributes?: Record<string, string | number>,
    error?: string,
  ];
  const specs: Spec[] = [
    [
      'root',
      'jobs',
      null,
      'POST /v1/jobs',
      'server',
      0,
      41.7,
      { 'http.request.method': 'POST', 'http.route': '/v1/jobs', 'http.response.status_code': 202 },
    ],
    ['auth', 'jobs', 'root', 'api-key verify', 'internal', 1.2, 2.4],
    [
      'ins',
      'jobs',
      'root',
      'INSERT hireflow_jobs.job',
      'client',
      4.1,
      6.3,
      {
        'db.system.name': 'postgresql',
        'db.query.text': 'insert into "job" ("id", "tenant_id", "title", "status") values ($1, $2, $3, $4)',
      },
    ],
    [
      'outbox',
      'jobs',
      'root',
      'INSERT hireflow_jobs.outbox',
      'client',
      11.0,
      3.9,
      { 'db.system.name': 'postgresql' },
    ],
    [
      'pub',
      'jobs',
      'root',
      'publish jobs-events',
      'producer',
      58.0,
      12.5,
      { 'messaging.system': 'aws_sns', 'messaging.destination.name': 'jobs-events' },
    ],
    [
      'proc',
      'matching',
      'pub',
      'process matching-inbox',
      'consumer',
      84.0,
      182.0,
      { 'messaging.system': 'aws_sqs', 'messaging.message.id': '6a1c2f0e-8d7b-4f3e-9c55-0b2d7e1a9f44' },
    ],
    ['embed', 'matching', 'proc', 'embed posting', 'internal', 86.5, 21.0, { 'embedding.dims': 384 }],
    [
      'sel',
      'matching',
      'proc',
      'SELECT hireflow_matching.candidate',
      'client',
      109.0,
      64.0,
      { 'db.system.name': 'postgresql' },
    ],
    [
      'score',
      'matching',
      'proc',
      'score candidates',
      'internal',
      174.0,
      38.0,
      { 'matching.candidates': 1200, 'matching.matches': 7 },
    ],
    [
      'mins',
      'matching',
      'proc',
      'INSERT hireflow_matching.match',
      'client',
      213.0,
      19.0,
      { 'db.system.name': 'postgresql' },
    ],
    [
      'mpub',
      'matching',
      'proc',
      'publish matching-events',
      'producer',
      236.0,
      11.0,
      { 'messaging.system': 'aws_sns' },
    ],
    [
      'nproc',
      'notifications',
      'mpub',
      'process notifications-inbox',
      'consumer',
      262.0,
      24.0,
      { 'messaging.system': 'aws_sqs' },
    ],
    ['enq', 'notifications', 'nproc', 'add email', 'producer', 270.0, 4.0, { 'messaging.system': 'bullmq' }],
    [
      'job',
      'notifications',
      'enq',
      'process email',
      'consumer',
      281.0,
      2240.0,
      { 'messaging.system': 'bullmq', 'bullmq.job.attempts': 2 },
    ],
    [
      'smtp1',
      'notifications',
      'job',
      'smtp send',
      'client',
      283.0,
      15.0,
      { 'server.address': '127.0.0.1', 'server.port': 1025 },
      'connect ECONNREFUSED 127.0.0.1:1025',
    ],
    [
      'smtp2',
      'notifications',
      'job',
      'smtp send',
      'client',
      2480.0,
      38.0,
      { 'server.address': '127.0.0.1', 'server.port': 1025 },
    ],
  ];
  const nanos = (ms: number) => (t0 + BigInt(Math.round(ms * 1_000_000))).toString();
  const byService = new Map<string, unknown[]>();
  for (const [key, service, parent, name, kind, start, duration, attributes = {}, error] of specs) {
    const spans = byService.get(service) ?? byService.set(service, []).get(service)!;
    spans.push({
      traceId,
      spanId: idOf(key),
      parentSpanId: parent ? idOf(parent) : undefined,
      name,
      kind: kinds[kind],
      startTimeUnixNano: nanos(start),
      endTimeUnixNano: nanos(start + duration),
      attributes: Object.entries(attributes).map(([k, v]) => ({
        key: k,
        value:
          typeof v === 'number'
            ? Number.isInteger(v)
              ? { intValue: v }
              : { doubleValue: v }
            : { stringValue: v },
      })),
      events: error
        ? [
            {
              name: 'exception',
              timeUnixNano: nanos(start + duration),
              attributes: [
                { key: 'exception.type', value: { stringValue: 'Error' } },
                { key: 'exception.message', value: { stringValue: error } },
                {
                  key: 'exception.stacktrace',
                  value: {
                    stringValue: `Error: ${error}\n    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1637:16)`,
                  },
                },
              ],
            },
          ]
        : [],
      status: error ? { code: 2, message: error } : { code: 0 },
    });
  }
  const request = {
    resourceSpans: [...byService].map(([service, spans]) => ({
      resource: {
        attributes: [
          { key: 'service.name', value: { stringValue: service } },
          { key: 'service.instance.id', value: { stringValue: `${service}-1` } },
        ],
      },
      scopeSpans: [{ scope: { name: 'hireflow', version: '0.1.0' }, spans }],
    })),
  };
  return { request, failedSpanId: idOf('smtp1') };
}
