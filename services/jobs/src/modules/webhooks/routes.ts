import type { Database } from '@hireflow/db';
import { HttpProblem, jsonResponse, problem, problemResponses } from '@hireflow/runtime';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { pageQuery, uuidParam } from '../../http/schemas.ts';
import { principalOf } from '../tenants/auth.ts';
import type { DeliveryQueue } from './deliveries.ts';
import {
  createEndpointBody,
  deliveryAccepted,
  deliveryDetail,
  deliveryPage,
  endpointList,
  endpointSchema,
  endpointWithSecret,
  patchEndpointBody,
  secretSchema,
} from './schemas.ts';
import {
  checkUrl,
  createEndpoint,
  createTestDelivery,
  toAttemptView,
  toDeliveryView,
  toEndpointView,
} from './service.ts';
import { newSecret } from './signing.ts';
import * as store from './store.ts';

export interface WebhookRouteOptions {
  orm: Database;
  /** Where the test and retry routes add their delivery (the worker role sends it). */
  queue: DeliveryQueue;
  allowHttp: boolean;
  rotationGraceMs: number;
}

const idParams = z.strictObject({ id: uuidParam.describe('The webhook endpoint id') });
const deliveryParams = z.strictObject({
  id: uuidParam.describe('The webhook endpoint id'),
  deliveryId: uuidParam.describe('The delivery id'),
});
const noBody = { body: z.strictObject({}).nullish(), documentedAs: { body: null } };
const badId = { 400: 'The id is not a UUID', 404: 'No webhook endpoint with this id for this API key' };
const bodyProblems = {
  400: 'The body is invalid (each field at fault named in errors), or is not JSON',
  413: 'The body is larger than the limit (64 KiB)',
  415: 'The body is not application/json',
};
const notFound = (id: string) => new HttpProblem(404, 'NOT_FOUND', `No webhook endpoint ${id}`);

export const webhookRoutes: FastifyPluginAsyncZod<WebhookRouteOptions> = async (app, options) => {
  const { orm, queue } = options;
  const endpointOf = async (tenantId: string, id: string) => {
    const endpoint = await store.findEndpoint(orm.em.fork(), tenantId, id);
    if (!endpoint) throw notFound(id);
    return endpoint;
  };

  app.post(
    '/v1/webhooks',
    {
      schema: {
        operationId: 'createWebhook',
        tags: ['webhooks'],
        summary: 'Register a webhook endpoint',
        description:
          "Registers an endpoint for the API key's tenant and answers its signing secret, this once. " +
          'Deliveries follow the Standard Webhooks specification (docs/webhooks.md). At most 10 endpoints per tenant.',
        body: createEndpointBody,
        response: {
          201: jsonResponse('The endpoint and its secret', endpointWithSecret),
          ...problemResponses(
            { ...bodyProblems, 409: 'The tenant has 10 endpoints already' },
            {
              409: problem(
                409,
                'ENDPOINT_LIMIT',
                'A tenant has at most 10 webhook endpoints; delete one first',
              ),
            },
          ),
        },
      },
    },
    async (request, reply) => {
      const { tenantId } = principalOf(request);
      checkUrl(request.body.url, options.allowHttp);
      const { id, secret } = await createEndpoint(orm.em.fork(), tenantId, request.body);
      const endpoint = await endpointOf(tenantId, id);
      reply.code(201).header('location', `/v1/webhooks/${id}`);
      return { ...toEndpointView(endpoint), secret };
    },
  );

  app.get(
    '/v1/webhooks',
    {
      schema: {
        operationId: 'listWebhooks',
        tags: ['webhooks'],
        summary: 'List webhook endpoints',
        description: "The API key's tenant's endpoints (at most 10), newest first.",
        response: { 200: jsonResponse('The endpoints', endpointList) },
      },
    },
    async (request) => {
      const { tenantId } = principalOf(request);
      return { items: (await store.listEndpoints(orm.em.fork(), tenantId)).map(toEndpointView) };
    },
  );

  app.get(
    '/v1/webhooks/:id',
    {
      schema: {
        operationId: 'getWebhook',
        tags: ['webhooks'],
        summary: 'Get a webhook endpoint',
        description:
          'An endpoint: where it points, what it receives, whether it is enabled (and if not, why).',
        params: idParams,
        response: { 200: jsonResponse('The endpoint', endpointSchema), ...problemResponses(badId) },
      },
    },
    async (request) => toEndpointView(await endpointOf(principalOf(request).tenantId, request.params.id)),
  );

  app.patch(
    '/v1/webhooks/:id',
    {
      schema: {
        operationId: 'updateWebhook',
        tags: ['webhooks'],
        summary: 'Change a webhook endpoint',
        description: 'Changes the URL, the event types, or whether it is enabled; enabling clears a disable.',
        params: idParams,
        body: patchEndpointBody,
        response: {
          200: jsonResponse('The endpoint as changed', endpointSchema),
          ...problemResponses({ ...bodyProblems, ...badId }),
        },
      },
    },
    async (request) => {
      const { tenantId } = principalOf(request);
      if (request.body.url !== undefined) checkUrl(request.body.url, options.allowHttp);
      const events = request.body.events ? [...new Set(request.body.events)] : undefined;
      const changed = await store.updateEndpoint(orm.em.fork(), tenantId, request.params.id, {
        url: request.body.url,
        events,
        enabled: request.body.enabled,
        now: new Date(),
      });
      if (!changed) throw notFound(request.params.id);
      return toEndpointView(changed);
    },
  );

  app.delete(
    '/v1/webhooks/:id',
    {
      schema: {
        operationId: 'deleteWebhook',
        tags: ['webhooks'],
        summary: 'Delete a webhook endpoint',
        description: 'Deletes the endpoint and its delivery log; nothing more is sent to it.',
        params: idParams,
        response: { 204: z.null().describe('Deleted'), ...problemResponses(badId) },
      },
    },
    async (request, reply) => {
      const { tenantId } = principalOf(request);
      if (!(await store.deleteEndpoint(orm.em.fork(), tenantId, request.params.id)))
        throw notFound(request.params.id);
      reply.code(204);
    },
  );

  app.post(
    '/v1/webhooks/:id/rotate-secret',
    {
      schema: {
        operationId: 'rotateWebhookSecret',
        tags: ['webhooks'],
        summary: "Rotate an endpoint's signing secret",
        description:
          'Answers a new secret, this once. For 24 hours deliveries carry two signatures, space separated: ' +
          'the new secret’s and the old one’s, so a receiver can switch when it likes. Send no body.',
        params: idParams,
        ...noBody,
        response: { 200: jsonResponse('The new secret', secretSchema), ...problemResponses(badId) },
      },
    },
    async (request) => {
      const { tenantId } = principalOf(request);
      const secret = newSecret();
      const graceUntil = new Date(Date.now() + options.rotationGraceMs);
      const rotated = await store.rotateSecret(
        orm.em.fork(),
        tenantId,
        request.params.id,
        secret,
        graceUntil,
      );
      if (!rotated) throw notFound(request.params.id);
      return { secret, previousSecretExpiresAt: graceUntil.toISOString() };
    },
  );

  app.post(
    '/v1/webhooks/:id/test',
    {
      schema: {
        operationId: 'testWebhook',
        tags: ['webhooks'],
        summary: 'Send a test delivery',
        description: 'Sends a webhook.test delivery now (retried like any other). Send no body.',
        params: idParams,
        ...noBody,
        response: {
          202: jsonResponse('The delivery is on its way', deliveryAccepted),
          ...problemResponses(badId),
        },
      },
    },
    async (request, reply) => {
      const endpoint = await endpointOf(principalOf(request).tenantId, request.params.id);
      const deliveryId = await createTestDelivery(orm.em.fork(), endpoint);
      await queue.add([deliveryId]);
      reply.code(202).header('location', `/v1/webhooks/${endpoint.id}/deliveries/${deliveryId}`);
      return { deliveryId, status: 'pending' as const };
    },
  );

  app.get(
    '/v1/webhooks/:id/deliveries',
    {
      schema: {
        operationId: 'listWebhookDeliveries',
        tags: ['webhooks'],
        summary: "List an endpoint's deliveries",
        description: 'Newest first, a page at a time (follow nextCursor).',
        params: idParams,
        querystring: pageQuery,
        response: {
          200: jsonResponse('A page of deliveries', deliveryPage),
          ...problemResponses({ ...badId, 400: 'The id is not a UUID, or limit or cursor is invalid' }),
        },
      },
    },
    async (request) => {
      const endpoint = await endpointOf(principalOf(request).tenantId, request.params.id);
      const page = await store.deliveriesPage(orm.em.fork(), endpoint.id, request.query);
      return { items: page.items.map(toDeliveryView), nextCursor: page.nextCursor };
    },
  );

  app.get(
    '/v1/webhooks/:id/deliveries/:deliveryId',
    {
      schema: {
        operationId: 'getWebhookDelivery',
        tags: ['webhooks'],
        summary: 'Get a delivery and its attempts',
        description:
          'Each attempt: when, the status code, the latency, the first KiB of the answer, or why none.',
        params: deliveryParams,
        response: {
          200: jsonResponse('The delivery', deliveryDetail),
          ...problemResponses({
            400: 'An id is not a UUID',
            404: 'No such endpoint or delivery for this API key',
          }),
        },
      },
    },
    async (request) => {
      const { tenantId } = principalOf(request);
      const em = orm.em.fork();
      const delivery = await store.findDelivery(em, tenantId, request.params.id, request.params.deliveryId);
      if (!delivery) throw new HttpProblem(404, 'NOT_FOUND', `No delivery ${request.params.deliveryId}`);
      const attempts = await store.attemptsOf(em, delivery.id);
      return { ...toDeliveryView(delivery), attemptLog: attempts.map(toAttemptView) };
    },
  );

  app.post(
    '/v1/webhooks/:id/deliveries/:deliveryId/retry',
    {
      schema: {
        operationId: 'retryWebhookDelivery',
        tags: ['webhooks'],
        summary: 'Send a delivery again now',
        description:
          'Sends the delivery again now, with the same webhook-id and body, whatever its status. Send no body.',
        params: deliveryParams,
        ...noBody,
        response: {
          202: jsonResponse('The delivery is on its way', deliveryAccepted),
          ...problemResponses({
            400: 'An id is not a UUID',
            404: 'No such endpoint or delivery for this API key',
          }),
        },
      },
    },
    async (request, reply) => {
      const { tenantId } = principalOf(request);
      const { id, deliveryId } = request.params;
      if (!(await store.resetDelivery(orm.em.fork(), tenantId, id, deliveryId)))
        throw new HttpProblem(404, 'NOT_FOUND', `No delivery ${deliveryId}`);
      await queue.add([deliveryId]);
      reply.code(202).header('location', `/v1/webhooks/${id}/deliveries/${deliveryId}`);
      return { deliveryId, status: 'pending' as const };
    },
  );
};
