import type { Database, Sql } from '@hireflow/db';
import { signals } from '@hireflow/telemetry';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { IdempotencyConflictError, IdempotencyInProgressError } from './errors.ts';
import { fingerprint } from './fingerprint.ts';
import { idempotencyKey } from './key.ts';
import { claimKey, completeClaim, DEFAULT_LEASE_MS, DEFAULT_RETENTION_MS, releaseClaim } from './store.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The store key (client scope + Idempotency-Key) of this request, or null; pass it on to providers. */
    idempotencyKey: string | null;
  }
  interface FastifyContextConfig {
    /** `false`: this POST route ignores the Idempotency-Key header. */
    idempotency?: boolean;
  }
}

export interface IdempotencyPluginOptions {
  /** The service's Database (@hireflow/db). */
  orm: Database;
  /**
   * The API client a key belongs to (tenant or API key id), so two clients'
   * keys never collide. It runs in preHandler: authenticate before that
   * (onRequest/preValidation) or register this plugin after the auth hook.
   * Unauthenticated requests share one scope.
   */
  scope?: (request: FastifyRequest) => string | undefined;
  /** How long a request may run before a retry may run it again. */
  leaseMs?: number;
  ttlMs?: number;
  /** Response headers stored and replayed with the body (lowercase). */
  replayHeaders?: string[];
}

interface StoredResponse {
  statusCode: number;
  headers: Record<string, string | number | string[]>;
  body: string | null;
  base64: boolean;
}

interface OpenClaim {
  key: string;
  token: string;
  store: Sql;
}

const ANONYMOUS_SCOPE = 'anonymous';
const MAX_KEY_LENGTH = 255;

/**
 * `Idempotency-Key` on POST routes (IETF httpapi idempotency-key draft): the
 * first response (status, body, replayHeaders) is stored and a retry with the
 * same key gets it again with `Idempotent-Replayed: true`. The same key with
 * another body (or on another URL) → 422; while the first is in flight → 409
 * with Retry-After; an empty or over-long key → 400. 5xx responses are not
 * stored: the claim is released so the client may retry.
 */
export const idempotencyPlugin = fp<IdempotencyPluginOptions>(
  async (app: FastifyInstance, options: IdempotencyPluginOptions) => {
    const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    const ttlMs = options.ttlMs ?? DEFAULT_RETENTION_MS;
    const replayHeaders = options.replayHeaders ?? ['content-type', 'location'];
    const claims = new WeakMap<FastifyRequest, OpenClaim>();

    app.decorateRequest('idempotencyKey', null);

    app.addHook('preHandler', async (request, reply) => {
      if (request.method !== 'POST' || request.routeOptions.config.idempotency === false) return;
      const header = request.headers['idempotency-key'];
      if (header === undefined) return;
      const clientKey = parseKeyHeader(header);
      if (clientKey === null) {
        return problem(reply, 400, 'IDEMPOTENCY_KEY_INVALID', 'Invalid Idempotency-Key', KEY_RULE);
      }
      const key = idempotencyKey('http', options.scope?.(request) || ANONYMOUS_SCOPE, clientKey);
      request.idempotencyKey = key;
      const store = options.orm.em.fork();
      const print = fingerprint({ method: request.method, url: request.url, body: request.body });
      try {
        const outcome = await claimKey(store, { key, fingerprint: print, leaseMs, ttlMs });
        if (outcome.kind === 'completed') {
          signals.idempotency.publish({ outcome: 'duplicate' });
          return replay(reply, outcome.result as StoredResponse);
        }
        claims.set(request, { key, token: outcome.token, store });
      } catch (error) {
        if (error instanceof IdempotencyConflictError) {
          return problem(reply, 422, error.code, 'Idempotency-Key reused', REUSED);
        }
        if (error instanceof IdempotencyInProgressError) {
          reply.header('retry-after', Math.max(1, Math.ceil(error.retryAfterMs / 1000)));
          return problem(reply, 409, error.code, 'Request in progress', IN_FLIGHT);
        }
        throw error;
      }
    });

    // onSend sees the serialized body and runs before the response leaves, so
    // a client that has the response will find it stored when it retries.
    app.addHook('onSend', async (request, reply, payload) => {
      const claim = claims.get(request);
      if (!claim) return payload;
      claims.delete(request);
      const body = storableBody(payload);
      try {
        if (reply.statusCode >= 500 || body === undefined) {
          await releaseClaim(claim.store, claim.key, claim.token);
          return payload;
        }
        const stored: StoredResponse = { statusCode: reply.statusCode, headers: {}, ...body };
        for (const name of replayHeaders) {
          const value = reply.getHeader(name);
          if (value !== undefined) stored.headers[name] = value;
        }
        const json = JSON.stringify(stored);
        if (!(await completeClaim(claim.store, claim.key, claim.token, json, ttlMs))) {
          request.log.warn({ idempotencyKey: claim.key }, 'idempotency lease lost: response not stored');
        }
      } catch (error) {
        // The client still gets its response; the claim expires with its lease.
        request.log.error(
          { err: error, idempotencyKey: claim.key },
          'idempotency: could not record the response',
        );
      }
      return payload;
    });

    // A reply that bypassed onSend (hijacked) leaves its claim open: give it back.
    app.addHook('onResponse', async (request) => {
      const claim = claims.get(request);
      if (!claim) return;
      claims.delete(request);
      await releaseClaim(claim.store, claim.key, claim.token).catch((error: unknown) => {
        request.log.error({ err: error, idempotencyKey: claim.key }, 'idempotency: could not release');
      });
    });
  },
  { name: '@hireflow/idempotency', fastify: '5.x' },
);

const KEY_RULE = `The Idempotency-Key header must hold one key of 1 to ${MAX_KEY_LENGTH} characters.`;
const REUSED = 'This Idempotency-Key was already used with a different request body or URL.';
const IN_FLIGHT = 'A request with this Idempotency-Key is still being processed; retry later.';

/** The key, unquoted when sent as a structured-field string (`"…"`, as the draft writes it); null if invalid. */
function parseKeyHeader(header: string | string[]): string | null {
  if (Array.isArray(header)) return null;
  const key = /^".*"$/.test(header) ? header.slice(1, -1) : header;
  return key.length >= 1 && key.length <= MAX_KEY_LENGTH ? key : null;
}

function storableBody(payload: unknown): Pick<StoredResponse, 'body' | 'base64'> | undefined {
  if (payload === null || payload === undefined) return { body: null, base64: false };
  if (typeof payload === 'string') return { body: payload, base64: false };
  if (Buffer.isBuffer(payload)) return { body: payload.toString('base64'), base64: true };
  return undefined; // a stream: cannot be replayed
}

function replay(reply: FastifyReply, stored: StoredResponse): FastifyReply {
  reply.code(stored.statusCode).headers(stored.headers).header('idempotent-replayed', 'true');
  if (stored.body === null) return reply.send();
  return reply.send(stored.base64 ? Buffer.from(stored.body, 'base64') : stored.body);
}

/** RFC 9457 problem details. */
function problem(
  reply: FastifyReply,
  status: number,
  code: string,
  title: string,
  detail: string,
): FastifyReply {
  const type = `https://hireflow.dev/problems/${code.toLowerCase().replaceAll('_', '-')}`;
  return reply.code(status).type('application/problem+json').send({ type, title, status, detail, code });
}
