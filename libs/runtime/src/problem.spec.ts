import Fastify from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { HttpProblem, problem, registerProblemHandlers } from './problem.ts';

function app() {
  const fastify = Fastify().withTypeProvider<ZodTypeProvider>();
  fastify.setValidatorCompiler(validatorCompiler);
  fastify.setSerializerCompiler(serializerCompiler);
  registerProblemHandlers(fastify);
  fastify.post(
    '/things',
    { schema: { body: z.strictObject({ name: z.string().min(1), tags: z.array(z.string().max(3)) }) } },
    async () => ({ ok: true }),
  );
  fastify.get('/conflict', async () => {
    throw new HttpProblem(409, 'ALREADY_CLOSED', 'The posting is closed', {
      headers: { 'retry-after': '3' },
    });
  });
  fastify.get('/boom', async () => {
    throw new Error('secret detail from the database');
  });
  return fastify;
}

describe('problem details', () => {
  it('build RFC 9457 bodies with a stable code and a type URL derived from it', () => {
    expect(problem(429, 'RATE_LIMITED', 'slow down')).toEqual({
      type: 'https://hireflow.dev/problems/rate-limited',
      title: 'Too Many Requests',
      status: 429,
      code: 'RATE_LIMITED',
      detail: 'slow down',
    });
  });

  it('map validation errors to 400 naming each field, array elements as name[i], unknown fields too', async () => {
    const res = await app().inject({
      method: 'POST',
      url: '/things',
      payload: { name: '', tags: ['ok', 'toolong'], extra: 1 },
    });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    const body = res.json();
    expect(body.code).toBe('VALIDATION_FAILED');
    expect(body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['extra', 'name', 'tags[1]']);
    expect(body.errors.find((e: { field: string }) => e.field === 'extra').message).toBe(
      'is not a known field',
    );
  });

  it('name a missing field as required, malformed JSON and a wrong content type as such', async () => {
    const missing = await app().inject({ method: 'POST', url: '/things', payload: { tags: [] } });
    expect(missing.json().errors).toEqual([{ field: 'name', message: 'is required' }]);
    const malformed = await app().inject({
      method: 'POST',
      url: '/things',
      headers: { 'content-type': 'application/json' },
      payload: '{"name":',
    });
    expect(malformed.json()).toMatchObject({ status: 400, code: 'MALFORMED_JSON' });
    // The test app is bare Fastify: its text/plain parser is the default one.
    const bare = app();
    bare.removeContentTypeParser('text/plain');
    const text = await bare.inject({
      method: 'POST',
      url: '/things',
      headers: { 'content-type': 'text/plain' },
      payload: 'hi',
    });
    expect(text.json()).toMatchObject({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  it('pass an HttpProblem through with its headers, and hide the cause of a 500', async () => {
    const conflict = await app().inject({ method: 'GET', url: '/conflict' });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.headers['retry-after']).toBe('3');
    expect(conflict.json()).toMatchObject({ code: 'ALREADY_CLOSED', instance: '/conflict' });
    const boom = await app().inject({ method: 'GET', url: '/boom' });
    expect(boom.statusCode).toBe(500);
    expect(boom.body).not.toContain('secret');
    expect(boom.json()).toMatchObject({ code: 'INTERNAL', title: 'Internal Server Error' });
  });

  it('answer unknown routes with a 404 problem', async () => {
    const res = await app().inject({ method: 'GET', url: '/nowhere' });
    expect(res.json()).toMatchObject({ status: 404, code: 'NOT_FOUND', instance: '/nowhere' });
  });
});
