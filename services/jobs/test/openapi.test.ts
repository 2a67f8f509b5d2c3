import { describeApi } from '@hireflow/jobs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JobsHarness, startJobsHarness } from './harness.ts';

// jobs' part of the public API document. The merged document consumers use
// (docs/api/openapi.json, with its staleness test in test/public-api.test.ts)
// is built from describeApi(), which registers the routes without serving
// them: here it must equal what the running app serves.
let h: JobsHarness;
beforeAll(async () => {
  h = await startJobsHarness('jobs-openapi');
});
afterAll(async () => {
  await h?.close();
});

describe('OpenAPI 3.1', () => {
  it('is served at /openapi.json and /docs', async () => {
    const doc = await h.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(doc.statusCode).toBe(200);
    expect(doc.json().openapi).toBe('3.1.0');
    const paths = Object.keys(doc.json().paths);
    expect(paths.sort()).toEqual(
      [
        '/v1/jobs',
        '/v1/jobs/{id}',
        '/v1/jobs/{id}/matches',
        '/v1/jobs/{id}/close',
        '/v1/jobs/{id}/events',
        '/v1/candidates',
        '/v1/candidates/{id}',
        '/v1/candidates/{id}/matches',
        '/v1/webhooks',
        '/v1/webhooks/{id}',
        '/v1/webhooks/{id}/rotate-secret',
        '/v1/webhooks/{id}/test',
        '/v1/webhooks/{id}/deliveries',
        '/v1/webhooks/{id}/deliveries/{deliveryId}',
        '/v1/webhooks/{id}/deliveries/{deliveryId}/retry',
        '/v1/candidates:batch',
      ].sort(),
    );
    const docs = await h.app.inject({ method: 'GET', url: '/docs/' });
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-type']).toMatch(/text\/html/);
  });

  it('is what describeApi() builds without a database, Redis or AWS', async () => {
    const served = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(await describeApi()).toEqual(served);
  });

  it('names every operation and describes the event stream as text/event-stream', async () => {
    const doc = await describeApi();
    const operations = Object.values(doc.paths).flatMap((item) => Object.values(item));
    expect(operations.map((op) => op.operationId).sort()).toEqual(
      [
        'closeJob',
        'getCandidate',
        'getJob',
        'listCandidateMatches',
        'listCandidates',
        'listJobMatches',
        'listJobs',
        'postJob',
        'registerCandidate',
        'registerCandidates',
        'streamJobEvents',
        'createWebhook',
        'listWebhooks',
        'getWebhook',
        'updateWebhook',
        'deleteWebhook',
        'rotateWebhookSecret',
        'testWebhook',
        'listWebhookDeliveries',
        'getWebhookDelivery',
        'retryWebhookDelivery',
      ].sort(),
    );
    const events = doc.paths['/v1/jobs/{id}/events']!.get as {
      responses: Record<string, { content: object }>;
    };
    expect(Object.keys(events.responses['200']!.content)).toEqual(['text/event-stream']);
  });
});
