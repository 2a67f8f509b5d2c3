import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './openapi.generated.ts';
import { allItems } from './pages.ts';
import { problemOf } from './problem.ts';
import { readServerSentEvents } from './sse.ts';

type Schemas = components['schemas'];
export type Accepted = Schemas['Accepted'];
export type Posting = Schemas['Posting'];
export type PostingPage = Schemas['PostingPage'];
export type Candidate = Schemas['Candidate'];
export type CandidatePage = Schemas['CandidatePage'];
export type Match = Schemas['Match'];
export type MatchPage = Schemas['MatchPage'];
export type Upload = Schemas['Upload'];
export type UploadAccepted = Schemas['UploadAccepted'];
export type NewJob = paths['/v1/jobs']['post']['requestBody']['content']['application/json'];
export type NewCandidate = paths['/v1/candidates']['post']['requestBody']['content']['application/json'];
export type CandidateBatchItem = Schemas['CandidateBatchItemInput'];
export type CandidateBatchAccepted = Schemas['CandidateBatchAccepted'];
type UploadForm = paths['/v1/uploads']['post']['requestBody']['content']['multipart/form-data'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type WebhookEndpointWithSecret = Schemas['WebhookEndpointWithSecret'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type WebhookDeliveryDetail = Schemas['WebhookDeliveryDetail'];
export type NewWebhook = paths['/v1/webhooks']['post']['requestBody']['content']['application/json'];
export type WebhookChange = paths['/v1/webhooks/{id}']['patch']['requestBody']['content']['application/json'];

/** What `GET /v1/jobs/{id}/events` sends in each `status` event. */
export interface JobStatusEvent {
  jobId: string;
  status: Posting['status'];
  matchCount: number | null;
}

export interface HireflowClientOptions {
  /** The API's one base URL (`http://127.0.0.1:3000` from `pnpm start`). */
  baseUrl: string;
  /** `hf_…`: sent as `Authorization: Bearer` on every request. */
  apiKey: string;
  /** A fetch of your own (tests, proxies); the global one by default. */
  fetch?: typeof fetch;
}

/** Per call: an Idempotency-Key for POSTs, a signal to abort. */
export interface CallOptions {
  /**
   * Makes the POST safe to retry: send the same key when you retry the same
   * action (a new `crypto.randomUUID()` per action), and the API answers
   * what it answered the first time without doing the work again.
   */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface ListQuery {
  /** 1 to 100 (default 20). */
  limit?: number;
  cursor?: string;
}

export interface UploadOptions extends CallOptions {
  /** The file name sent with the part (the type is decided from the bytes anyway). */
  filename?: string;
  contentType?: string;
  /** What the image is for: a posting's logo or a candidate's photo. */
  owner?: { type: 'job' | 'candidate'; id: string };
}

/** openapi-fetch's answer: the data, or the error body with the response. */
type Result<T> = { data?: T; error?: unknown; response: Response };

async function dataOf<T>(call: Promise<Result<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw problemOf(response, error);
  return data as T;
}

const idempotencyHeader = (options: CallOptions) =>
  options.idempotencyKey === undefined ? {} : { 'idempotency-key': options.idempotencyKey };

const sleep = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

/**
 * A typed client of the Hireflow public API. Every method throws
 * `HireflowProblem` for an error answer. `api` is the underlying
 * openapi-fetch client (`api.GET('/v1/jobs/{id}', …)`), typed from the API
 * document, for anything the methods do not cover.
 */
export function createHireflowClient(options: HireflowClientOptions) {
  const api: Client<paths> = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { authorization: `Bearer ${options.apiKey}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const byId = (id: string) => ({ path: { id } });

  const jobs = {
    /** Posts a job: 202 with its id; poll `get` or follow `events`. */
    post: (body: NewJob, call: CallOptions = {}) =>
      dataOf(api.POST('/v1/jobs', { body, headers: idempotencyHeader(call), signal: call.signal })),
    get: (id: string, call: CallOptions = {}) =>
      dataOf(api.GET('/v1/jobs/{id}', { params: byId(id), signal: call.signal })),
    list: (query: ListQuery = {}, call: CallOptions = {}) =>
      dataOf(api.GET('/v1/jobs', { params: { query }, signal: call.signal })),
    /** Every posting, newest first, fetching pages as they are used. */
    all: (query: Omit<ListQuery, 'cursor'> = {}) =>
      allItems((cursor) => jobs.list({ ...query, ...(cursor ? { cursor } : {}) })),
    close: (id: string, call: CallOptions = {}) =>
      dataOf(
        api.POST('/v1/jobs/{id}/close', {
          params: byId(id),
          headers: idempotencyHeader(call),
          signal: call.signal,
        }),
      ),
    matches: (id: string, query: ListQuery = {}, call: CallOptions = {}) =>
      dataOf(api.GET('/v1/jobs/{id}/matches', { params: { ...byId(id), query }, signal: call.signal })),
    allMatches: (id: string, query: Omit<ListQuery, 'cursor'> = {}) =>
      allItems((cursor) => jobs.matches(id, { ...query, ...(cursor ? { cursor } : {}) })),
    /**
     * The posting's status now, then every change (Server-Sent Events). When
     * the server ends the stream (its maximum life, a restart) it reconnects
     * after the server's `retry:` hint, unless `reconnect` is false; the
     * current status comes first again, so nothing is missed. Stop with
     * `break` or the signal.
     */
    events: (id: string, call: { signal?: AbortSignal; reconnect?: boolean } = {}) =>
      statusEvents(id, call.signal, call.reconnect ?? true),
  };

  async function* statusEvents(
    id: string,
    signal: AbortSignal | undefined,
    reconnect: boolean,
  ): AsyncGenerator<JobStatusEvent> {
    let retryMs = 3000;
    for (;;) {
      const stream = await dataOf(
        api.GET('/v1/jobs/{id}/events', {
          params: byId(id),
          headers: { accept: 'text/event-stream' },
          parseAs: 'stream',
          signal,
        }),
      );
      if (!stream) throw new Error('the event stream has no body');
      for await (const message of readServerSentEvents(stream, (ms) => {
        retryMs = ms;
      })) {
        if (message.event === 'status') yield JSON.parse(message.data) as JobStatusEvent;
      }
      if (!reconnect) return;
      await sleep(retryMs, signal);
    }
  }

  const candidates = {
    /** Registers a candidate: `created` is false when the email was already registered (200, nothing emitted). */
    register: async (body: NewCandidate, call: CallOptions = {}) => {
      const { data, error, response } = await api.POST('/v1/candidates', {
        body,
        headers: idempotencyHeader(call),
        signal: call.signal,
      });
      if (!response.ok || !data) throw problemOf(response, error);
      return { ...data, created: response.status === 202 };
    },
    /**
     * Registers up to 1,000 candidates in one request (an import: the bulk
     * lane). One result per item, in order; a bad item is reported in its
     * place (`invalid`, with each field at fault) while the others go ahead.
     * Give each item a `key` to make it safe to send again on its own.
     */
    registerBatch: (items: CandidateBatchItem[], call: CallOptions = {}) =>
      dataOf(
        api.POST('/v1/candidates:batch', {
          body: { items },
          headers: idempotencyHeader(call),
          signal: call.signal,
        }),
      ),
    get: (id: string, call: CallOptions = {}) =>
      dataOf(api.GET('/v1/candidates/{id}', { params: byId(id), signal: call.signal })),
    list: (query: ListQuery = {}, call: CallOptions = {}) =>
      dataOf(api.GET('/v1/candidates', { params: { query }, signal: call.signal })),
    all: (query: Omit<ListQuery, 'cursor'> = {}) =>
      allItems((cursor) => candidates.list({ ...query, ...(cursor ? { cursor } : {}) })),
    matches: (id: string, query: ListQuery = {}, call: CallOptions = {}) =>
      dataOf(api.GET('/v1/candidates/{id}/matches', { params: { ...byId(id), query }, signal: call.signal })),
    allMatches: (id: string, query: Omit<ListQuery, 'cursor'> = {}) =>
      allItems((cursor) => candidates.matches(id, { ...query, ...(cursor ? { cursor } : {}) })),
  };

  const uploads = {
    /** Uploads an image (multipart, field `file`): 202 with its id; `waitUntilFinished` polls it. */
    create: (file: Blob | Uint8Array, call: UploadOptions = {}) => {
      const blob =
        file instanceof Blob
          ? file
          : new Blob([file as Uint8Array<ArrayBuffer>], {
              type: call.contentType ?? 'application/octet-stream',
            });
      const form = new FormData();
      form.append('file', blob, call.filename ?? 'image');
      if (call.owner) {
        form.append('ownerType', call.owner.type);
        form.append('ownerId', call.owner.id);
      }
      // openapi-fetch sends a FormData as it is (with its boundary); the type describes its fields.
      return dataOf(
        api.POST('/v1/uploads', {
          body: form as unknown as UploadForm,
          headers: idempotencyHeader(call),
          signal: call.signal,
        }),
      );
    },
    get: (id: string, call: CallOptions = {}) =>
      dataOf(api.GET('/v1/uploads/{id}', { params: byId(id), signal: call.signal })),
    /** Polls the upload until it is ready or failed (default: every 500 ms, for at most 60 s). */
    waitUntilFinished: async (
      id: string,
      call: { intervalMs?: number; timeoutMs?: number; signal?: AbortSignal } = {},
    ): Promise<Upload> => {
      const deadline = Date.now() + (call.timeoutMs ?? 60_000);
      for (;;) {
        const upload = await uploads.get(id, call);
        if (upload.status !== 'pending') return upload;
        if (Date.now() >= deadline)
          throw new Error(`upload ${id} still pending after ${call.timeoutMs ?? 60_000} ms`);
        await sleep(call.intervalMs ?? 500, call.signal);
      }
    },
  };

  const deliveryParams = (id: string, deliveryId: string) => ({ path: { id, deliveryId } });
  const webhooks = {
    /** Registers an endpoint: 201 with its signing `secret`, shown this once (verify with `verifyWebhook`). */
    create: (body: NewWebhook, call: CallOptions = {}) =>
      dataOf(api.POST('/v1/webhooks', { body, headers: idempotencyHeader(call), signal: call.signal })),
    list: (call: CallOptions = {}) => dataOf(api.GET('/v1/webhooks', { signal: call.signal })),
    get: (id: string, call: CallOptions = {}) =>
      dataOf(api.GET('/v1/webhooks/{id}', { params: byId(id), signal: call.signal })),
    update: (id: string, body: WebhookChange, call: CallOptions = {}) =>
      dataOf(api.PATCH('/v1/webhooks/{id}', { params: byId(id), body, signal: call.signal })),
    delete: async (id: string, call: CallOptions = {}) => {
      const { error, response } = await api.DELETE('/v1/webhooks/{id}', {
        params: byId(id),
        signal: call.signal,
      });
      if (!response.ok) throw problemOf(response, error);
    },
    /** A new secret (shown this once); the old one signs beside it for 24 h. */
    rotateSecret: (id: string, call: CallOptions = {}) =>
      dataOf(
        api.POST('/v1/webhooks/{id}/rotate-secret', {
          params: byId(id),
          headers: idempotencyHeader(call),
          signal: call.signal,
        }),
      ),
    /** Sends a `webhook.test` delivery now. */
    test: (id: string, call: CallOptions = {}) =>
      dataOf(
        api.POST('/v1/webhooks/{id}/test', {
          params: byId(id),
          headers: idempotencyHeader(call),
          signal: call.signal,
        }),
      ),
    deliveries: (id: string, query: ListQuery = {}, call: CallOptions = {}) =>
      dataOf(
        api.GET('/v1/webhooks/{id}/deliveries', { params: { ...byId(id), query }, signal: call.signal }),
      ),
    allDeliveries: (id: string, query: Omit<ListQuery, 'cursor'> = {}) =>
      allItems((cursor) => webhooks.deliveries(id, { ...query, ...(cursor ? { cursor } : {}) })),
    /** One delivery and each of its attempts. */
    delivery: (id: string, deliveryId: string, call: CallOptions = {}) =>
      dataOf(
        api.GET('/v1/webhooks/{id}/deliveries/{deliveryId}', {
          params: deliveryParams(id, deliveryId),
          signal: call.signal,
        }),
      ),
    /** Sends a delivery again now, with the same webhook-id. */
    retry: (id: string, deliveryId: string, call: CallOptions = {}) =>
      dataOf(
        api.POST('/v1/webhooks/{id}/deliveries/{deliveryId}/retry', {
          params: deliveryParams(id, deliveryId),
          headers: idempotencyHeader(call),
          signal: call.signal,
        }),
      ),
  };

  return { api, jobs, candidates, uploads, webhooks };
}

export type HireflowClient = ReturnType<typeof createHireflowClient>;
