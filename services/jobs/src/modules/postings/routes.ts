import type { MikroORM } from '@hireflow/db';
import { idFromKey } from '@hireflow/idempotency';
import { type ConcurrencySlots, HttpProblem, withTimeout } from '@hireflow/runtime';
import { currentTraceId } from '@hireflow/telemetry';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { accepted, pageQuery, problemSchema, uuidParam } from '../../http/schemas.ts';
import { principalOf } from '../tenants/auth.ts';
import { matchesPage, postingSchema, postingsPage, postJobBody } from './schemas.ts';
import { closeJob, postJob, toPostingView } from './service.ts';
import type { StatusFeed } from './status-feed.ts';
import { StatusStreams } from './status-stream.ts';
import * as store from './store.ts';

export interface PostingRoutesOptions {
  orm: MikroORM;
  feed: StatusFeed;
  /** Open status streams per API key, across processes. */
  streamSlots: ConcurrencySlots;
  maxStreamMs: number;
  autoCloseAfterMs: number;
  /** Schedules the delayed auto-close of a new posting (after its commit). */
  scheduleAutoClose(job: { jobId: string; tenantId: string }, delayMs: number): Promise<unknown>;
}

const notFound = (id: string) => new HttpProblem(404, 'NOT_FOUND', `No job posting ${id}`);
const errors = { 400: problemSchema, 401: problemSchema, 404: problemSchema, 429: problemSchema };
const idParams = z.strictObject({ id: uuidParam });

export const postingRoutes: FastifyPluginAsyncZod<PostingRoutesOptions> = async (app, options) => {
  const { orm, feed } = options;
  const streams = new StatusStreams({ feed, slots: options.streamSlots, maxStreamMs: options.maxStreamMs });
  app.addHook('preClose', async () => streams.endAll());

  app.post(
    '/v1/jobs',
    {
      schema: {
        tags: ['jobs'],
        summary: 'Post a job; matching and emails happen behind the 202',
        body: postJobBody,
        response: {
          202: accepted,
          ...errors,
          409: problemSchema,
          413: problemSchema,
          415: problemSchema,
          422: problemSchema,
        },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      // With an Idempotency-Key the posting id derives from it: a retry that
      // outlived the key's lease (or a crash before the response was stored)
      // finds the posting it already made instead of making a second one.
      const id = request.idempotencyKey ? idFromKey(`job:${request.idempotencyKey}`) : undefined;
      const posting = await postJob(orm.em.fork(), principal, request.body, options.autoCloseAfterMs, id);
      // After commit, best effort and bounded: the worker's sweep closes
      // overdue postings whatever happens to this delayed job.
      await withTimeout(
        options.scheduleAutoClose(
          { jobId: posting.id, tenantId: principal.tenantId },
          options.autoCloseAfterMs,
        ),
        1000,
      ).catch((error) =>
        request.log.warn({ err: error, jobId: posting.id }, 'could not schedule auto-close; the sweep will'),
      );
      reply.code(202).header('location', `/v1/jobs/${posting.id}`);
      return { id: posting.id, status: 'processing', traceId: currentTraceId() ?? null };
    },
  );

  app.get(
    '/v1/jobs',
    {
      schema: {
        tags: ['jobs'],
        summary: "The tenant's postings, newest first",
        querystring: pageQuery,
        response: { 200: postingsPage, ...errors },
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
        tags: ['jobs'],
        summary: 'A posting and its status',
        params: idParams,
        response: { 200: postingSchema, ...errors },
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
        tags: ['jobs'],
        summary: 'Matched candidates with scores, best first',
        params: idParams,
        querystring: pageQuery,
        response: { 200: matchesPage, ...errors },
      },
    },
    async (request) => {
      const { tenantId } = principalOf(request);
      const em = orm.em.fork();
      if (!(await store.postingExists(em, tenantId, request.params.id))) throw notFound(request.params.id);
      return store.matchesPage(em, { tenantId, jobId: request.params.id }, request.query);
    },
  );

  app.post(
    '/v1/jobs/:id/close',
    {
      schema: {
        tags: ['jobs'],
        summary: 'Close a posting; emits job.closed.v1',
        params: idParams,
        body: z.strictObject({}).nullish(),
        response: { 202: accepted, ...errors, 409: problemSchema, 422: problemSchema },
      },
    },
    async (request, reply) => {
      const { tenantId } = principalOf(request);
      const result = await closeJob(orm.em.fork(), tenantId, request.params.id);
      if (!result) throw notFound(request.params.id);
      const { posting } = result;
      if (result.changed) {
        await feed.notify(
          { jobId: posting.id, status: 'closed', matchCount: posting.matchCount ?? null },
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
        tags: ['jobs'],
        summary: 'Server-Sent Events: the posting status now, then every change',
        params: idParams,
        produces: ['text/event-stream'],
      },
    },
    async (request, reply) => {
      const { tenantId, keyId } = principalOf(request);
      const jobId = request.params.id;
      if (!(await store.postingExists(orm.em.fork(), tenantId, jobId))) throw notFound(jobId);
      await streams.stream(request, reply, { jobId, keyId }, async () => {
        const current = await store.findPosting(orm.em.fork(), tenantId, jobId);
        return current && { jobId, status: current.status, matchCount: current.matchCount ?? null };
      });
    },
  );
};
