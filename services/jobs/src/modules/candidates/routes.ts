import type { MikroORM } from '@hireflow/db';
import { HttpProblem } from '@hireflow/runtime';
import { currentTraceId } from '@hireflow/telemetry';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  accepted,
  email,
  emailSafeText,
  mediaImage,
  pageQuery,
  problemSchema,
  skills,
  text,
  uuidParam,
} from '../../http/schemas.ts';
import { matchesPage } from '../postings/schemas.ts';
import { matchesPage as readMatchesPage } from '../postings/store.ts';
import { principalOf } from '../tenants/auth.ts';
import { registerCandidate, toCandidateView } from './service.ts';
import { candidateExists, candidatesPage, findCandidate } from './store.ts';

const registerBody = z
  .strictObject({
    name: emailSafeText(200),
    email,
    headline: emailSafeText(300, { min: 0 }),
    skills,
    location: text(200, { min: 0 }),
  })
  .describe('A candidate');

const candidateSchema = z.object({
  id: z.uuid(),
  status: z.literal('registered'),
  name: z.string(),
  email: z.string(),
  headline: z.string(),
  skills: z.array(z.string()),
  location: z.string(),
  photo: mediaImage
    .nullable()
    .describe("The candidate's photo (an upload with ownerType candidate), once processed"),
  registeredAt: z.string(),
});

const errors = { 400: problemSchema, 401: problemSchema, 404: problemSchema, 429: problemSchema };
const idParams = z.strictObject({ id: uuidParam });
const notFound = (id: string) => new HttpProblem(404, 'NOT_FOUND', `No candidate ${id}`);

export const candidateRoutes: FastifyPluginAsyncZod<{ orm: MikroORM }> = async (app, { orm }) => {
  app.post(
    '/v1/candidates',
    {
      schema: {
        tags: ['candidates'],
        summary:
          'Register a candidate (202); an email already registered returns the existing candidate (200)',
        body: registerBody,
        response: {
          202: accepted,
          200: accepted.describe('Already registered: nothing is emitted again'),
          ...errors,
          409: problemSchema,
          413: problemSchema,
          415: problemSchema,
          422: problemSchema,
        },
      },
    },
    async (request, reply) => {
      const { tenantId } = principalOf(request);
      const { candidate, created } = await registerCandidate(orm.em.fork(), tenantId, request.body);
      reply.code(created ? 202 : 200).header('location', `/v1/candidates/${candidate.id}`);
      return { id: candidate.id, status: 'registered', traceId: currentTraceId() ?? null };
    },
  );

  app.get(
    '/v1/candidates',
    {
      schema: {
        tags: ['candidates'],
        summary: "The tenant's candidates, newest first",
        querystring: pageQuery,
        response: {
          200: z.object({ items: z.array(candidateSchema), nextCursor: z.string().nullable() }),
          ...errors,
        },
      },
    },
    async (request) => {
      const { tenantId } = principalOf(request);
      const result = await candidatesPage(orm.em.fork(), tenantId, request.query);
      return { items: result.items.map(toCandidateView), nextCursor: result.nextCursor };
    },
  );

  app.get(
    '/v1/candidates/:id',
    {
      schema: {
        tags: ['candidates'],
        summary: 'A candidate',
        params: idParams,
        response: { 200: candidateSchema, ...errors },
      },
    },
    async (request) => {
      const { tenantId } = principalOf(request);
      const candidate = await findCandidate(orm.em.fork(), tenantId, request.params.id);
      if (!candidate) throw notFound(request.params.id);
      return toCandidateView(candidate);
    },
  );

  app.get(
    '/v1/candidates/:id/matches',
    {
      schema: {
        tags: ['candidates'],
        summary: "The candidate's matches with scores, best first",
        params: idParams,
        querystring: pageQuery,
        response: { 200: matchesPage, ...errors },
      },
    },
    async (request) => {
      const { tenantId } = principalOf(request);
      const em = orm.em.fork();
      if (!(await candidateExists(em, tenantId, request.params.id))) throw notFound(request.params.id);
      return readMatchesPage(em, { tenantId, candidateId: request.params.id }, request.query);
    },
  );
};
