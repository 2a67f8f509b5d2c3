import type { Database } from '@hireflow/db';
import { idFromKey } from '@hireflow/idempotency';
import {
  type ConcurrencySlots,
  HttpProblem,
  jsonResponse,
  LOCATION_HEADER,
  problem,
  problemResponses,
} from '@hireflow/runtime';
import { currentTraceId } from '@hireflow/telemetry';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  matchesPageExample,
  postingAcceptedExample,
  postingClosedExample,
  postingExample,
  postingsPageExample,
  statusStreamExample,
} from '../../http/examples.ts';
import { accepted, pageQuery, uuidParam } from '../../http/schemas.ts';
import { principalOf } from '../tenants/auth.ts';
import { matchesPage, newPostingBody, postingSchema, postingsPage } from './schemas.ts';
import { closePosting, createPosting, toPostingView } from './service.ts';
import type { StatusFeed } from './status-feed.ts';
import { StatusStreams } from './status-stream.ts';
import * as store from './store.ts';

export interface PostingRoutesOptions {
  orm: Database;
  feed: StatusFeed;
  /** Open status streams per API key, across processes. */
  streamSlots: ConcurrencySlots;
  maxStreamMs: number;
  /** Keep-alive comments of a status stream, and the key's recheck, this often. */
  keepAliveMs: number;
  /** A posting's close_at is this far after its posting; the worker's sweep closes it then. */
  autoCloseAfterMs: number;
}

const notFound = (id: string) => new HttpProblem(404, 'NOT_FOUND', `No job posting ${id}`);
const idParams = z.strictObject({ id: uuidParam.describe('The posting id') });
// What each route answers itself; the front door's statuses (401, 408, 429,
// 503) and the Idempotency-Key's (409, 422) are added to the public document
// for every route they apply to.
const badId = { 400: 'The id is not a UUID', 404: 'No posting with this id for this API key' };
const badPage = { 400: 'limit or cursor is invalid (named in errors)' };
const badBody = {
  400: 'The body is invalid (each field at fault named in errors), or is not JSON',
  413: 'The body is larger than the limit (64 KiB)',
  415: 'The body is not application/json',
};

export const postingRoutes: FastifyPluginAsyncZod<PostingRoutesOptions> = async (app, options) => {
  const { orm, feed } = options;
  const streams = new StatusStreams({
    feed,
    slots: options.streamSlots,
    maxStreamMs: options.maxStreamMs,
    keepAliveMs: options.keepAliveMs,
  });
  app.addHook('preClose', async () => streams.endAll());

  app.post(
    '/v1/jobs',
    {
      schema: {
        operationId: 'postJob',
        tags: ['jobs'],
        summary: 'Post a job',
        description:
          'Stores the posting and answers 202 at once; matching candidates and emails happen behind it. ' +
          'Poll `Location` (the status goes processing → matched) or stream its events.',
        body: newPostingBody,
        response: {
          202: jsonResponse('Accepted: the posting is processing', accepted, {
            example: postingAcceptedExample,
            headers: { location: LOCATION_HEADER },
          }),
          ...problemResponses(badBody),
        },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      // With an Idempotency-Key the posting id derives from it: a retry that
      // outlived the key's lease (or a crash before the response was stored)
      // finds the posting it already made instead of making a second one.
      const id = request.idempotencyKey ? idFromKey(`job:${request.idempotencyKey}`) : undefined;
      // One statement (posting + outbox row). No Redis write: the worker's
      // sweep closes the posting once its close_at has passed.
      const posting = await createPosting(
        orm.em.fork(),
        principal,
        request.body,
        options.autoCloseAfterMs,
        id,
      );
      reply.code(202).header('location', `/v1/jobs/${posting.id}`);
      return { id: posting.id, status: 'processing', traceId: currentTraceId() ?? null };
    },
  );

  app.get(
    '/v1/jobs',
    {
      schema: {
        operationId: 'listJobs',
        tags: ['jobs'],
        summary: 'List postings',
        description: "The API key's tenant's postings, newest first, a page at a time (follow nextCursor).",
        querystring: pageQuery,
        response: {
          200: jsonResponse('A page of postings', postingsPage, { example: postingsPageExample }),
          ...problemResponses(badPage),
        },
      },
    },
    async (request) => {
      const { tenantId } = principalOf(request);
      const result = await store.postingsPage(orm.em.fork(), tenantId, request.query);
      return { items: result.items.map(toPostingView), nextCursor: result.nextCursor };
    },
  );

  app.get(
    '/v1/jobs/:id',
    {
      schema: {
        operationId: 'getJob',
        tags: ['jobs'],
        summary: 'Get a posting',
        description: 'A posting, its status (processing, matched, closed), match count and logo.',
        params: idParams,
        response: {
          200: jsonResponse('The posting', postingSchema, { example: postingExample }),
          ...problemResponses(badId),
        },
      },
    },
    async (request) => {
      const { tenantId } = principalOf(request);
      const posting = await store.findPosting(orm.em.fork(), tenantId, request.params.id);
      if (!posting) throw notFound(request.params.id);
      return toPostingView(posting);
    },
  );

  app.get(
    '/v1/jobs/:id/matches',
    {
      schema: {
        operationId: 'listJobMatches',
        tags: ['jobs'],
        summary: "List a posting's matches",
        description: 'The candidates matched to the posting, best score first, a page at a time.',
        params: idParams,
        querystring: pageQuery,
        response: {
          200: jsonResponse('A page of matches', matchesPage, { example: matchesPageExample }),
          ...problemResponses({ ...badId, ...badPage }),
        },
      },
    },
    async (request) => {
      const { tenantId } = principalOf(request);
      const em = orm.em.fork();
      if (!(await store.postingExists(em, tenantId, request.params.id))) throw notFound(request.params.id);
      return store.matchesPage(em, { tenantId, postingId: request.params.id }, request.query);
    },
  );

  app.post(
    '/v1/jobs/:id/close',
    {
      schema: {
        operationId: 'closeJob',
        tags: ['jobs'],
        summary: 'Close a posting',
        description:
          'Closes the posting (no more matches or emails) and emits job.closed.v1. Closing a closed ' +
          'posting answers 202 again. Send no body (an empty JSON object is accepted too).',
        params: idParams,
        body: z.strictObject({}).nullish(),
        documentedAs: { body: null },
        response: {
          202: jsonResponse('Accepted: the posting is closed', accepted, {
            example: postingClosedExample,
            headers: { location: LOCATION_HEADER },
          }),
          ...problemResponses({
            ...badId,
            400: 'The id is not a UUID, or a body was sent that is not an empty JSON object',
            413: 'The body is larger than the limit (64 KiB)',
            415: 'A body was sent that is not application/json',
          }),
        },
      },
    },
    async (request, reply) => {
      const { tenantId } = principalOf(request);
      const result = await closePosting(orm.em.fork(), tenantId, request.params.id);
      if (!result) throw notFound(request.params.id);
      const { posting } = result;
      if (result.changed) {
        await feed.notify(
          { postingId: posting.id, status: 'closed', matchCount: posting.matchCount ?? null },
          request.log,
        );
      }
      reply.code(202).header('location', `/v1/jobs/${posting.id}`);
      return { id: posting.id, status: 'closed', traceId: currentTraceId() ?? null };
    },
  );

  app.get(
    '/v1/jobs/:id/events',
    {
      schema: {
        operationId: 'streamJobEvents',
        tags: ['jobs'],
        summary: "Stream a posting's status (Server-Sent Events)",
        description:
          'A `text/event-stream`: an `event: status` with the current status first, then one for every ' +
          'change; `data` is JSON `{ jobId, status, matchCount }` and `id` counts the events of this stream. ' +
          'A comment line (`: keep-alive`) every 15 s keeps proxies from closing it; the API key is checked ' +
          'again as often, and a stream whose key was revoked ends with an `event: revoked`. The server ends a stream ' +
          'after its maximum life (10 min by default) with a `retry:` hint; reconnect after it (EventSource ' +
          'does by itself): the current status comes first again, so nothing is missed. An API key may hold ' +
          'a bounded number of streams open at once (429 TOO_MANY_STREAMS beyond).',
        params: idParams,
        documentedAs: {
          responses: {
            200: {
              description: 'The stream of status events',
              content: {
                'text/event-stream': {
                  schema: { type: 'string', description: 'Server-Sent Events (see the operation)' },
                  example: statusStreamExample,
                },
              },
            },
          },
        },
        response: problemResponses(
          {
            ...badId,
            429: 'This API key holds as many open streams as it may (TOO_MANY_STREAMS)',
          },
          {
            429: problem(
              429,
              'TOO_MANY_STREAMS',
              'This API key holds as many open status streams as it may; close one first',
            ),
          },
        ),
      },
    },
    async (request, reply) => {
      const { tenantId, keyId } = principalOf(request);
      const postingId = request.params.id;
      if (!(await store.postingExists(orm.em.fork(), tenantId, postingId))) throw notFound(postingId);
      await streams.stream(
        request,
        reply,
        { postingId, keyId },
        async () => {
          const current = await store.findPosting(orm.em.fork(), tenantId, postingId);
          return current && { postingId, status: current.status, matchCount: current.matchCount ?? null };
        },
        () => app.recheckApiKey(request),
      );
    },
  );
};
