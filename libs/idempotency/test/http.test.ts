import { uniqueName, waitFor } from '@hireflow/testing';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyPlugin } from '../src/index.ts';
import { backends, gate, openTestOrm, type TestOrm } from './orm.ts';

describe.each(backends)('$name: idempotencyPlugin', ({ name }) => {
  let db: TestOrm;
  let app: FastifyInstance;
  const calls = { applications: 0, slow: 0, flaky: 0, ignored: 0 };
  let slowGate = gate();
  let slowEntered = false;

  beforeAll(async () => {
    db = await openTestOrm('idem-http', 10, name);
    app = Fastify();
    await app.register(idempotencyPlugin, {
      orm: db.target,
      scope: (request) => request.headers['x-api-client'] as string | undefined,
    });
    app.post('/applications', async (request, reply) => {
      const id = ++calls.applications;
      reply.code(201).header('location', `/applications/${id}`).header('x-request-only', 'yes');
      return { id, key: request.idempotencyKey, body: request.body };
    });
    app.post('/slow', async () => {
      calls.slow++;
      slowEntered = true;
      await slowGate.opened;
      return { slow: true };
    });
    app.post('/flaky', async (_request, reply) => {
      if (++calls.flaky === 1) throw new Error('database unavailable');
      return reply.code(201).send({ attempt: calls.flaky });
    });
    app.post('/missing', async (_request, reply) => reply.code(404).send({ error: 'no such posting' }));
    app.post('/ignored', { config: { idempotency: false } }, async () => ({ n: ++calls.ignored }));
    app.put('/ignored', async () => ({ n: ++calls.ignored }));
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await db.close();
  });

  const post = (
    url: string,
    key: string | undefined,
    payload: object = { jobId: 'j1' },
    client = 'tenant-a',
  ) =>
    app.inject({
      method: 'POST',
      url,
      payload,
      headers: { ...(key === undefined ? {} : { 'idempotency-key': key }), 'x-api-client': client },
    });

  it('replays the first response (status, body, location) with Idempotent-Replayed: true', async () => {
    const key = uniqueName('replay');
    const first = await post('/applications', key);
    const before = calls.applications;
    const again = await post('/applications', key);
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(again.statusCode).toBe(201);
    expect(again.body).toBe(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers.location).toBe(first.headers.location);
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.headers['x-request-only']).toBeUndefined();
    expect(calls.applications).toBe(before);
    expect(first.json().key).toBe(`http:tenant-a:${key}`);
  });

  it('runs every request that carries no key', async () => {
    const before = calls.applications;
    await post('/applications', undefined);
    await post('/applications', undefined);
    expect(calls.applications).toBe(before + 2);
  });

  it('answers 422 problem+json for the same key with another body or on another URL', async () => {
    const key = uniqueName('reuse');
    await post('/applications', key, { jobId: 'j1' });
    for (const response of [await post('/applications', key, { jobId: 'j2' }), await post('/missing', key)]) {
      expect(response.statusCode).toBe(422);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.json()).toMatchObject({
        type: expect.any(String),
        title: expect.any(String),
        status: 422,
        detail: expect.any(String),
        code: 'IDEMPOTENCY_CONFLICT',
      });
    }
  });

  it('treats the same body with its keys in another order as the same request', async () => {
    const key = uniqueName('order');
    const first = await post('/applications', key, { jobId: 'j1', note: 'hi' });
    const again = await post('/applications', key, { note: 'hi', jobId: 'j1' });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
  });

  it('answers 409 problem+json with Retry-After while the first request is in flight', async () => {
    const key = uniqueName('inflight');
    slowGate = gate();
    slowEntered = false;
    const first = post('/slow', key);
    await waitFor(() => slowEntered);
    const concurrent = await post('/slow', key);
    expect(concurrent.statusCode).toBe(409);
    expect(concurrent.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(concurrent.json()).toMatchObject({ status: 409, code: 'IDEMPOTENCY_IN_PROGRESS' });
    expect(Number(concurrent.headers['retry-after'])).toBeGreaterThan(0);
    slowGate.open();
    expect((await first).statusCode).toBe(200);
    const after = await post('/slow', key);
    expect(after.headers['idempotent-replayed']).toBe('true');
    expect(calls.slow).toBe(1);
  });

  it('keeps the keys of two API clients apart', async () => {
    const key = uniqueName('shared');
    const a = await post('/applications', key, { jobId: 'j1' }, 'tenant-a');
    const b = await post('/applications', key, { jobId: 'j1' }, 'tenant-b');
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(b.json().id).not.toBe(a.json().id);
    expect((await post('/applications', key, { jobId: 'j1' }, 'tenant-a')).body).toBe(a.body);
    expect((await post('/applications', key, { jobId: 'j1' }, 'tenant-b')).body).toBe(b.body);
  });

  it('does not store a 5xx: the retry runs the handler, and its response is stored', async () => {
    const key = uniqueName('flaky');
    expect((await post('/flaky', key)).statusCode).toBe(500);
    const retried = await post('/flaky', key);
    expect(retried.statusCode).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    const replayed = await post('/flaky', key);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.json()).toEqual({ attempt: 2 });
    expect(calls.flaky).toBe(2);
  });

  it('stores and replays a 4xx like any other final answer', async () => {
    const key = uniqueName('not-found');
    const first = await post('/missing', key);
    const again = await post('/missing', key);
    expect(first.statusCode).toBe(404);
    expect(again.statusCode).toBe(404);
    expect(again.headers['idempotent-replayed']).toBe('true');
  });

  it('answers 400 problem+json for an empty key or one longer than 255 characters', async () => {
    for (const key of ['', 'k'.repeat(256), '""']) {
      const response = await post('/applications', key);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ status: 400, code: 'IDEMPOTENCY_KEY_INVALID' });
    }
    expect((await post('/applications', 'k'.repeat(255))).statusCode).toBe(201);
  });

  it('accepts the key as a structured-field string ("…"), the same key as unquoted', async () => {
    const key = uniqueName('quoted');
    const first = await post('/applications', `"${key}"`);
    const again = await post('/applications', key);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
  });

  it('leaves routes that opt out and non-POST requests alone', async () => {
    const key = uniqueName('ignored');
    await post('/ignored', key);
    await post('/ignored', key);
    const put = () =>
      app.inject({ method: 'PUT', url: '/ignored', payload: {}, headers: { 'idempotency-key': key } });
    await put();
    expect((await put()).headers['idempotent-replayed']).toBeUndefined();
    expect(calls.ignored).toBe(4);
  });
});
