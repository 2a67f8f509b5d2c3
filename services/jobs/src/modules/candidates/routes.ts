import type { MikroORM } from '@hireflow/db';
import { HttpProblem, jsonResponse, LOCATION_HEADER, problemResponses } from '@hireflow/runtime';
import { currentTraceId } from '@hireflow/telemetry';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  candidateAcceptedExample,
  candidateExample,
  candidatesPageExample,
  matchesPageExample,
  registerCandidateExample,
} from '../../http/examples.ts';
import {
  accepted,
  email,
  emailSafeText,
  mediaImage,
  pageQuery,
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
  .meta({ description: 'A candidate', examples: [registerCandidateExample] });

const candidateSchema = z
  .object({
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
  })
  .meta({ id: 'Candidate', description: 'A registered candidate' });

const candidatePage = z
  .object({
    items: z.array(candidateSchema),
    nextCursor: z.string().nullable().describe('Pass as ?cursor= for the next page; null on the last page'),
  })
  .meta({ id: 'CandidatePage', description: 'A page of candidates, newest first' });

const idParams = z.strictObject({ id: uuidParam.describe('The candidate id') });
// What each route answers itself (the front door's and the Idempotency-Key's are added to the document).
const badId = { 400: 'The id is not a UUID', 404: 'No candidate with this id for this API key' };
const badPage = { 400: 'limit or cursor is invalid (named in errors)' };
const notFound = (id: string) => new HttpProblem(404, 'NOT_FOUND', `No candidate ${id}`);

export const candidateRoutes: FastifyPluginAsyncZod<{ orm: MikroORM }> = async (app, { orm }) => {
  app.post(
    '/v1/candidates',
    {
      schema: {
        operationId: 'registerCandidate',
        tags: ['candidates'],
        summary: 'Register a candidate',
        description:
          'Stores the candidate and answers 202; the welcome email and matching happen behind it. An email ' +
          "address already registered for this tenant answers 200 with the existing candidate's id and " +
          'emits nothing.',
        body: registerBody,
        response: {
          202: jsonResponse('Accepted: the candidate is registered', accepted, {
            example: candidateAcceptedExample,
            headers: { location: LOCATION_HEADER },
          }),
          200: jsonResponse('Already registered: the existing candidate, nothing emitted again', accepted, {
            example: candidateAcceptedExample,
            headers: { location: LOCATION_HEADER },
          }),
          ...problemResponses({
            400: 'The body is invalid (each field at fault named in errors), or is not JSON',
            413: 'The body is larger than the limit (64 KiB)',
            415: 'The body is not application/json',
          }),
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
        operationId: 'listCandidates',
        tags: ['candidates'],
        summary: 'List candidates',
        description: "The API key's tenant's candidates, newest first, a page at a time (follow nextCursor).",
        querystring: pageQuery,
        response: {
          200: jsonResponse('A page of candidates', candidatePage, { example: candidatesPageExample }),
          ...problemResponses(badPage),
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
        operationId: 'getCandidate',
        tags: ['candidates'],
        summary: 'Get a candidate',
        description: 'A candidate and their photo, once one is uploaded and processed.',
        params: idParams,
        response: {
          200: jsonResponse('The candidate', candidateSchema, { example: candidateExample }),
          ...problemResponses(badId),
        },
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
        operationId: 'listCandidateMatches',
        tags: ['candidates'],
        summary: "List a candidate's matches",
        description: 'The postings the candidate matched, best score first, a page at a time.',
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
      if (!(await candidateExists(em, tenantId, request.params.id))) throw notFound(request.params.id);
      return readMatchesPage(em, { tenantId, candidateId: request.params.id }, request.query);
    },
  );
};
