import type { MikroORM } from '@hireflow/db';
import { HttpProblem, withTimeout } from '@hireflow/runtime';
import { currentTraceId } from '@hireflow/telemetry';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { JobPosting } from '../../db/entities.ts';
import { newestFirstPage } from '../../http/pagination.ts';
import { accepted, pageQuery, problemSchema, uuidParam } from '../../http/schemas.ts';
import { principalOf } from '../tenants/auth.ts';
import { listMatches } from './matches.ts';
import { matchesPage, postingView as postingSchema, postingsPage, postJobBody } from './schemas.ts';
import { closeJob, idFromKey, postingView, postJob } from './service.ts';
import type { JobStatusChange, StatusFeed } from './status-feed.ts';

export interface PostingRoutesOptions {
  orm: MikroORM;
  feed: StatusFeed;
  autoCloseAfterMs: number;
  /** Schedules the delayed auto-close of a new posting (after its commit). */
  scheduleAutoClose(job: { jobId: string; tenantId: string }, delayMs: number): Promise<unknown>;
}

const notFound = (id: string) => new HttpProblem(404, 'NOT_FOUND', `No job posting ${id}`);
const errors = { 400: problemSchema, 401: problemSchema, 404: problemSchema, 429: problemSchema };
const idParams = z.strictObject({ id: uuidParam });

export const postingRoutes: FastifyPluginAsyncZod<PostingRoutesOptions> = async (app, options) => {
  const { orm, feed } = options;
  // Open SSE streams, ended when the server closes so shutdown is not held up by them.
  const streams = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const end of [...streams]) end();
  });

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
      const { tenantId } = principal;
      // With an Idempotency-Key the posting id derives from it: a retry that
      // outlived the key's lease (or a crash before the response was stored)
      // finds the posting it already made instead of making a second one.
      const id = request.idempotencyKey ? idFromKey(`job:${request.idempotencyKey}`) : undefined;
      const posting = await postJob(orm.em.fork(), principal, request.body, options.autoCloseAfterMs, id);
      // After commit, best effort and bounded: the worker's sweep closes
      // overdue postings whatever happens to this delayed job.
      await withTimeout(
        options.scheduleAutoClose({ jobId: posting.id, tenantId }, options.autoCloseAfterMs),
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
      const result = await newestFirstPage(orm.em.fork(), JobPosting, tenantId, 'postedAt', request.query);
      return { items: result.items.map(postingView), nextCursor: result.nextCursor };
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
      const posting = await orm.em.fork().findOne(JobPosting, { id: request.params.id, tenantId });
      if (!posting) throw notFound(request.params.id);
      return postingView(posting);
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
      if (!(await em.count(JobPosting, { id: request.params.id, tenantId })))
        throw notFound(request.params.id);
      return listMatches(em, { tenantId, jobId: request.params.id }, request.query);
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
      if (result.changed)
        await publishChange(
          feed,
          result.posting.id,
          'closed',
          result.posting.matchCount ?? null,
          request.log,
        );
      reply.code(202).header('location', `/v1/jobs/${result.posting.id}`);
      return { id: result.posting.id, status: 'closed', traceId: currentTraceId() ?? null };
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
      const { tenantId } = principalOf(request);
      const em = orm.em.fork();
      const posting = await em.findOne(JobPosting, { id: request.params.id, tenantId });
      if (!posting) throw notFound(request.params.id);
      const jobId = posting.id;

      reply.hijack();
      const raw = reply.raw;
      // Registered before any await: a client gone while we subscribe must
      // still release its subscription, and shutdown must end every stream.
      let keepAlive: NodeJS.Timeout | undefined;
      let unsubscribe: (() => Promise<void>) | undefined;
      let ended = false;
      const end = () => {
        if (ended) return;
        ended = true;
        streams.delete(end);
        clearInterval(keepAlive);
        void unsubscribe?.();
        raw.end();
      };
      streams.add(end);
      request.raw.once('close', end);

      let sequence = 0;
      const send = (change: JobStatusChange) => {
        if (!ended) raw.write(`id: ${++sequence}\nevent: status\ndata: ${JSON.stringify(change)}\n\n`);
      };
      try {
        raw.writeHead(200, {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-cache, no-transform',
          connection: 'keep-alive',
          'x-accel-buffering': 'no',
        });
        // Subscribe first, then read the current state: a change committed in
        // between is sent (perhaps twice, harmlessly), never missed.
        unsubscribe = await feed.subscribe(jobId, send);
        if (ended) {
          await unsubscribe();
          return;
        }
        const current = await orm.em.fork().findOne(JobPosting, { id: jobId });
        if (current) send({ jobId, status: current.status, matchCount: current.matchCount ?? null });
        keepAlive = setInterval(() => raw.write(': keep-alive\n\n'), 15_000);
        if (ended) clearInterval(keepAlive);
      } catch (error) {
        request.log.error({ err: error, jobId }, 'status stream failed');
        end();
      }
    },
  );
};

export async function publishChange(
  feed: StatusFeed,
  jobId: string,
  status: JobStatusChange['status'],
  matchCount: number | null,
  log: { error(obj: object, msg: string): void },
): Promise<void> {
  // The change is committed; a lost notification only delays an SSE client until its next change.
  await feed
    .publish({ jobId, status, matchCount })
    .catch((error) => log.error({ err: error, jobId }, 'status publish failed'));
}
