import type { Database } from '@hireflow/db';
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
import { MAX_BATCH_ITEMS, registerBatch } from './batch.ts';
import { batchSchemas } from './batch-schemas.ts';
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

const batch = batchSchemas(registerBody);
/** A batch of 1,000 candidates is ~0.5 MiB; its items are checked one by one. */
const BATCH_BODY_LIMIT = 4 * 1024 * 1024;

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

export const candidateRoutes: FastifyPluginAsyncZod<{ orm: Database }> = async (app, { orm }) => {
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

  // `::` is a literal colon to Fastify's router: the path is /v1/candidates:batch.
  app.post(
    '/v1/candidates::batch',
    {
      bodyLimit: BATCH_BODY_LIMIT,
      schema: {
        operationId: 'registerCandidates',
        tags: ['candidates'],
        summary: 'Register candidates in a batch',
        description:
          `Registers up to ${MAX_BATCH_ITEMS} candidates in one request and answers 202 with one result per ` +
          'item, in order. A bad item is reported in its place (each field at fault named) while the others ' +
          'go ahead. The welcome emails and matching happen behind it, in the bulk lane: after the interactive ' +
          "work of every tenant, and fairly by tenant within the lane. An item's `key` makes it idempotent on " +
          'its own; without one, an email already registered answers `existing` and emits nothing.',
        body: batch.body,
        response: {
          202: jsonResponse('Accepted: each item registered or reported in its place', batch.accepted),
          ...problemResponses({
            400: 'The body is not { items: [...] } with 1 to 1000 items, or is not JSON',
            413: 'The body is larger than the limit (4 MiB)',
            415: 'The body is not application/json',
          }),
        },
      },
    },
    async (request, reply) => {
      const { tenantId } = principalOf(request);
      const result = await registerBatch(orm, tenantId, request.body.items);
      reply.code(202);
      return { ...result, traceId: currentTraceId() ?? null };
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
