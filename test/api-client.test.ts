import { buildPublicApiDocument, documentText, readCommittedDocument } from '@hireflow/api-docs';
import { createHireflowClient, type HireflowClient, HireflowProblem } from '@hireflow/client';
import { webhooksSection } from '@hireflow/jobs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PublicApiHarness, startPublicApi } from './public-api-harness.ts';

// @hireflow/client against jobs and media listening behind the gateway: one
// base URL, one key, every helper of the client (idempotency, problems,
// pages, the status stream, uploads).

// A 1×1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
const job = (title: string) => ({
  title,
  description: 'Node, Postgres',
  skills: ['node'],
  location: 'Berlin',
  remote: true,
});

let h: PublicApiHarness;
let client: HireflowClient;
beforeAll(async () => {
  h = await startPublicApi('api-client', { listen: true, mediaWorker: true });
  client = createHireflowClient({ baseUrl: h.baseUrl, apiKey: h.apiKey });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

describe('the running services', () => {
  it('serve the parts that make the committed public document (the client is generated from it)', async () => {
    const jobs = (await h.jobs.inject({ method: 'GET', url: '/openapi.json' })).json();
    const media = (await h.media.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(documentText(buildPublicApiDocument([jobs, media], webhooksSection()))).toBe(
      await readCommittedDocument(),
    );
  });
});

describe('@hireflow/client through the one base URL', () => {
  it('posts a job once per Idempotency-Key, and the retry replays the first answer', async () => {
    const key = crypto.randomUUID();
    const first = await client.jobs.post(job('Idempotent'), { idempotencyKey: key });
    const retry = await client.api.POST('/v1/jobs', {
      body: job('Idempotent'),
      headers: { 'idempotency-key': key },
    });
    expect(retry.response.status).toBe(202);
    expect(retry.response.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.data).toEqual(first);
    // The same key with another body is refused, as a typed problem.
    const reused = await client.jobs.post(job('Another'), { idempotencyKey: key }).catch((e: unknown) => e);
    expect(reused).toBeInstanceOf(HireflowProblem);
    expect(reused).toMatchObject({ status: 422, code: 'IDEMPOTENCY_CONFLICT' });
  });

  it('throws HireflowProblem naming the field at fault, and for a bad key', async () => {
    const invalid = await client.jobs.post({ ...job(''), skills: ['a', 'a'] }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(HireflowProblem);
    const problem = invalid as HireflowProblem;
    expect(problem).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(problem.fieldError('title')).toBeDefined();
    expect(problem.fieldError('skills')).toBe('must not repeat a skill');

    const stranger = createHireflowClient({ baseUrl: h.baseUrl, apiKey: 'hf_not-a-key' });
    await expect(stranger.uploads.get(crypto.randomUUID())).rejects.toMatchObject({
      status: 401,
      code: 'UNAUTHORIZED',
    });
    await expect(client.jobs.get(crypto.randomUUID())).rejects.toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
    });
  });

  it('walks every page of a list', async () => {
    const posted = [];
    for (let i = 0; i < 5; i++) posted.push((await client.jobs.post(job(`Paged ${i}`))).id);
    const first = await client.jobs.list({ limit: 2 });
    expect(first.items).toHaveLength(2);
    expect(first.nextCursor).not.toBeNull();
    const seen: string[] = [];
    for await (const posting of client.jobs.all({ limit: 2 })) seen.push(posting.id);
    expect(seen).toEqual(expect.arrayContaining(posted));
    expect(new Set(seen).size).toBe(seen.length);
  });

  it("streams a posting's status: the current one first, then the change a close makes", async () => {
    const { id } = await client.jobs.post(job('Streamed'));
    const statuses: string[] = [];
    for await (const change of client.jobs.events(id, { reconnect: false })) {
      statuses.push(change.status);
      if (change.status === 'processing') await client.jobs.close(id);
      if (change.status === 'closed') break;
    }
    expect(statuses).toEqual(['processing', 'closed']);
  });

  it('manages webhook endpoints: create (secret once), list, update, test, deliveries, delete', async () => {
    const created = await client.webhooks.create({
      url: 'https://ats.example.com/hireflow',
      events: ['posting.matched', 'upload.ready'],
      description: 'client test',
    });
    expect(created.secret).toMatch(/^whsec_/);
    expect((await client.webhooks.list()).items.map((e) => e.id)).toContain(created.id);
    const changed = await client.webhooks.update(created.id, { events: ['posting.closed'] });
    expect(changed.events).toEqual(['posting.closed']);
    const { secret } = await client.webhooks.rotateSecret(created.id);
    expect(secret).not.toBe(created.secret);
    const { deliveryId } = await client.webhooks.test(created.id);
    const page = await client.webhooks.deliveries(created.id);
    expect(page.items.map((d) => d.id)).toContain(deliveryId);
    expect((await client.webhooks.delivery(created.id, deliveryId)).type).toBe('webhook.test');
    const bad = await client.webhooks
      .create({ url: 'ftp://x', events: ['posting.matched'] })
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(HireflowProblem);
    expect((bad as HireflowProblem).fieldError('url')).toBeDefined();
    await client.webhooks.delete(created.id);
    const gone = await client.webhooks.get(created.id).catch((e: unknown) => e);
    expect(gone).toMatchObject({ status: 404 });
  });

  it('registers a candidate once (created, then already registered)', async () => {
    const body = { name: 'Ada Lovelace', email: 'ada@example.test', headline: '', skills: [], location: '' };
    const first = await client.candidates.register(body);
    const again = await client.candidates.register(body);
    expect(first.created).toBe(true);
    expect(again).toMatchObject({ id: first.id, created: false });
    expect((await client.candidates.get(first.id)).name).toBe('Ada Lovelace');
  });

  it('registers candidates in a batch: one result per item in order, a bad item reported in its place', async () => {
    const person = (n: number) => ({
      name: `Batch Person ${n}`,
      email: `batch-${n}@example.test`,
      headline: '',
      skills: ['typescript'],
      location: '',
      key: `client-batch-${n}`,
    });
    const items = [person(1), { ...person(2), email: 'not an email' }, person(3)];
    const accepted = await client.candidates.registerBatch(items);
    expect(accepted.items.map((item) => item.status)).toEqual(['registered', 'invalid', 'registered']);
    expect(accepted.items[1]!.errors?.map((e) => e.field)).toEqual(['items[1].email']);
    const again = await client.candidates.registerBatch([person(1)]);
    expect(again.items[0]).toMatchObject({ id: accepted.items[0]!.id });
    expect((await client.candidates.get(accepted.items[2]!.id!)).name).toBe('Batch Person 3');
  });

  it('uploads an image to media and fetches its variant, through the same base URL', async () => {
    const { id: postingId } = await client.jobs.post(job('With a logo'));
    const upload = await client.uploads.create(PNG, {
      filename: 'logo.png',
      owner: { type: 'job', id: postingId },
      idempotencyKey: crypto.randomUUID(),
    });
    expect(upload.status).toBe('pending');
    const ready = await client.uploads.waitUntilFinished(upload.id, { intervalMs: 50, timeoutMs: 30_000 });
    expect(ready).toMatchObject({ status: 'ready', ownerType: 'job', ownerId: postingId });
    const thumb = ready.variants.find((variant) => variant.name === 'thumb')!;
    expect(thumb.url.startsWith(`${h.baseUrl}/media/`)).toBe(true);
    const bytes = await fetch(thumb.url);
    expect(bytes.status).toBe(200);
    expect(bytes.headers.get('content-type')).toBe('image/webp');

    const notAnImage = await client.uploads.create(Buffer.from('%PDF-1.7')).catch((e: unknown) => e);
    expect(notAnImage).toMatchObject({ status: 415, code: 'UNSUPPORTED_IMAGE_TYPE' });
  });
});
