// The one public API document: every service's own part (generated from its
// route schemas) merged, with what is the same for every route added once.

import { isDeepStrictEqual } from 'node:util';
import { PUBLIC_API_PORT, servicePort } from '@hireflow/contracts';
import type { OpenApiDocument } from '@hireflow/runtime';
import {
  ALSO_MEANS,
  defaultProblemExample,
  FRONT_DOOR,
  IDEMPOTENCY,
  IDEMPOTENCY_KEY,
  IDEMPOTENT_REPLAYED,
  OPEN_DOOR,
  type ProblemContext,
  RETRY_AFTER,
  RETRY_STATUSES,
  SHARED_RESPONSES,
} from './shared.ts';

type Json = Record<string, unknown>;
type Operation = Json & { responses: Record<string, Json>; parameters?: Json[]; security?: unknown[] };

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

export const INFO = {
  title: 'Hireflow API',
  version: '1.0.0',
  summary: 'Post jobs, register candidates and upload images; matching and emails happen behind a 202.',
  description: [
    'The public API of Hireflow, a job board backend. One base URL serves every operation (jobs, ',
    'candidates and uploads are answered by different services behind it).',
    '',
    '**Authentication.** Every `/v1` operation needs an API key: `Authorization: Bearer hf_…`. A missing or ',
    'unknown key is a 401; an address that sends too many of those gets 429 for a while, even with a good key.',
    '',
    '**Asynchronous writes.** A POST stores the minimum and answers `202 Accepted` with the id, its status ',
    'and a `Location` to poll; the work (matching, emails, image resizing) happens behind it. A posting ',
    "can also be followed live: `GET /v1/jobs/{id}/events` streams its status (Server-Sent Events). The 202's ",
    '`traceId` names the trace of everything that followed.',
    '',
    '**Retries.** Every POST takes an `Idempotency-Key` header: retrying with the same key never does the ',
    'work twice and answers what the first request answered.',
    '',
    '**Errors** are RFC 9457 `application/problem+json` with a stable `code` and, for bad input, `errors` ',
    'naming each field at fault. 429 and 503 carry `Retry-After`.',
    '',
    '**Lists** are pages, newest (or best) first: pass the `nextCursor` of a page as `?cursor=` for the next; ',
    '`limit` is 1 to 100 (default 20). A null `nextCursor` is the last page.',
  ].join('\n'),
  contact: { name: 'Hireflow API', email: 'api@hireflow.dev', url: 'https://hireflow.dev/api' },
  license: { name: 'Proprietary', url: 'https://hireflow.dev/terms' },
};

export const SERVERS = [
  {
    url: 'https://{host}',
    description: "Production: the load balancer's HTTPS name",
    variables: { host: { default: 'api.hireflow.dev', description: "Your deployment's API host" } },
  },
  {
    url: `http://127.0.0.1:${PUBLIC_API_PORT}`,
    description: `Local: \`pnpm start\` (the entry point in front of jobs on ${servicePort('jobs')} and media on ${servicePort('media')}; HIREFLOW_API_PORT)`,
  },
];

export const TAGS = [
  {
    name: 'jobs',
    description: 'Job postings: post, read, list and close them, their matches, their status live',
  },
  { name: 'candidates', description: 'Candidates: register, read and list them, their matches' },
  {
    name: 'uploads',
    description:
      "Images (a posting's logo, a candidate's photo): upload, follow the resize, fetch the variants",
  },
  {
    name: 'webhooks',
    description:
      'Webhook endpoints: results pushed to your URL, signed (Standard Webhooks), retried, with a delivery log',
  },
];

const SECURITY_SCHEMES = {
  apiKey: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'hf_ followed by 43 base64url characters',
    description:
      "An API key, issued to a tenant (`pnpm cli api-key create`): every answer is about that tenant's data.",
  },
};

/**
 * Merges the services' documents into the public one and adds what every
 * route shares: servers, info, security, the front door's responses, the
 * Idempotency-Key of POSTs, problem+json with an example for every error.
 * Throws when two parts disagree (the same path, or a component with the
 * same name and another shape) or an operation lacks its operationId or tag.
 */
export function buildPublicApiDocument(parts: OpenApiDocument[], webhooks?: Json): OpenApiDocument {
  const paths: Record<string, Json> = {};
  const schemas: Json = {};
  for (const part of parts) {
    for (const [path, item] of Object.entries(part.paths)) {
      if (paths[path]) throw new Error(`two services describe ${path}`);
      paths[path] = item;
    }
    for (const [name, schema] of Object.entries(part.components?.schemas ?? {})) {
      if (name in schemas && !isDeepStrictEqual(schemas[name], schema)) {
        throw new Error(`two services name different schemas ${name}`);
      }
      schemas[name] = schema;
    }
  }
  const sortedPaths = Object.fromEntries(
    Object.keys(paths)
      .sort(byPath)
      .map((path) => [path, completePathItem(path, paths[path]!)]),
  );
  return {
    openapi: '3.1.0',
    info: INFO,
    servers: SERVERS,
    security: [{ apiKey: [] }],
    tags: TAGS,
    paths: sortedPaths as OpenApiDocument['paths'],
    ...(webhooks ? { webhooks } : {}),
    components: {
      schemas: sortKeys(schemas),
      responses: SHARED_RESPONSES,
      parameters: { IdempotencyKey: IDEMPOTENCY_KEY },
      headers: { RetryAfter: RETRY_AFTER, IdempotentReplayed: IDEMPOTENT_REPLAYED },
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}

/** `/v1/…` before `/media/…`, then alphabetical. */
function byPath(a: string, b: string): number {
  const rank = (path: string) => (path.startsWith('/v1/') ? 0 : 1);
  return rank(a) - rank(b) || a.localeCompare(b);
}

function sortKeys<T extends Json>(value: T): T {
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b))) as T;
}

function completePathItem(path: string, item: Json): Json {
  const out: Json = {};
  for (const [method, value] of Object.entries(item)) {
    out[method] = METHODS.includes(method) ? completeOperation(path, method, value as Operation) : value;
  }
  return out;
}

function completeOperation(path: string, method: string, operation: Operation): Operation {
  const where = `${method.toUpperCase()} ${path}`;
  if (typeof operation.operationId !== 'string') throw new Error(`${where} has no operationId`);
  const tags = operation.tags as string[] | undefined;
  if (!tags?.length || !tags.every((tag) => TAGS.some((t) => t.name === tag))) {
    throw new Error(`${where} has no tag, or one not in TAGS`);
  }
  const isPost = method === 'post';
  const needsKey = !(Array.isArray(operation.security) && operation.security.length === 0);
  const shared: Record<string, string> = {
    ...(needsKey ? FRONT_DOOR : OPEN_DOOR),
    ...(isPost ? IDEMPOTENCY : {}),
  };
  const responses: Record<string, Json> = {};
  const context: ProblemContext = {
    path,
    bodyField: firstRequiredField(operation.requestBody),
    hasPathId: (operation.parameters ?? []).some((p) => p.in === 'path'),
  };

  for (const [status, response] of Object.entries(operation.responses)) {
    responses[status] = Number(status) >= 400 ? problemResponse(status, response, context) : response;
    // A status the route answers for its own reasons that the shared layers answer too.
    const note = isPost ? (ALSO_MEANS[status]?.post ?? ALSO_MEANS[status]?.all) : ALSO_MEANS[status]?.all;
    if (note && (status in shared || (isPost && status === '400'))) {
      responses[status] = { ...responses[status], description: `${response.description}; or ${note}` };
    }
    if (RETRY_STATUSES.has(status) && Number(status) >= 400) {
      const headers = (responses[status]!.headers ?? {}) as Json;
      responses[status] = { ...responses[status], headers: { ...headers, 'Retry-After': RETRY_REF } };
    }
    if (isPost && status.startsWith('2')) {
      const headers = (responses[status]!.headers ?? {}) as Json;
      responses[status] = {
        ...responses[status],
        headers: { ...headers, 'Idempotent-Replayed': REPLAYED_REF },
      };
    }
  }
  for (const [status, name] of Object.entries(shared)) {
    responses[status] ??= { $ref: `#/components/responses/${name}` };
  }
  const parameters = isPost ? [...(operation.parameters ?? []), IDEMPOTENCY_KEY_REF] : operation.parameters;
  return {
    ...operation,
    ...(parameters ? { parameters } : {}),
    responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b))),
  };
}

const RETRY_REF = { $ref: '#/components/headers/RetryAfter' };
const REPLAYED_REF = { $ref: '#/components/headers/IdempotentReplayed' };
const IDEMPOTENCY_KEY_REF = { $ref: '#/components/parameters/IdempotencyKey' };

/** A route's own error response as problem+json with the shared schema and an example. */
function problemResponse(status: string, response: Json, context: ProblemContext): Json {
  const content = (response.content ?? {}) as Record<string, Json>;
  const declared = content['application/problem+json'] ?? content['application/json'];
  const example = declared?.example ?? defaultProblemExample(status, context);
  return {
    ...response,
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' }, example } },
  };
}

function firstRequiredField(requestBody: unknown): string | undefined {
  const content = (
    requestBody as { content?: Record<string, { schema?: { required?: string[] } }> } | undefined
  )?.content;
  return content?.['application/json']?.schema?.required?.[0];
}
