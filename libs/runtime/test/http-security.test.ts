import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createHttpServer, createLogger } from '../src/index.ts';

const log = createLogger('runtime-test', 'silent');

function server(options: { requestTimeoutMs?: number } = {}) {
  const app = createHttpServer({ log, ...options, relaxedCsp: ['/docs'] });
  app.get('/thing', async () => ({ ok: true }));
  app.get('/docs/page', async (_request, reply) => reply.type('text/html').send('<p>docs</p>'));
  app.get('/public-bytes', async (_request, reply) =>
    reply.header('cache-control', 'public, max-age=31536000, immutable').send('bytes'),
  );
  app.post('/upload', async () => ({ ok: true }));
  return app;
}

describe('API8 security misconfiguration: headers on every response', () => {
  it('sends nosniff, no-store, a closed CSP, frame and referrer policies; a route may set its own cache policy', async () => {
    const app = server();
    try {
      const res = await app.inject({ method: 'GET', url: '/thing' });
      expect(res.headers).toMatchObject({
        'x-content-type-options': 'nosniff',
        'cache-control': 'no-store',
        'x-frame-options': 'DENY',
        'referrer-policy': 'no-referrer',
        'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
      });
      const missing = await app.inject({ method: 'GET', url: '/nope' });
      expect(missing.headers['cache-control']).toBe('no-store');
      expect(missing.headers['x-content-type-options']).toBe('nosniff');
      const bytes = await app.inject({ method: 'GET', url: '/public-bytes' });
      expect(bytes.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      const docs = await app.inject({ method: 'GET', url: '/docs/page' });
      expect(docs.headers['content-security-policy']).toBeUndefined();
    } finally {
      await app.close();
    }
  });

  it('answers a URL Fastify cannot route with problem+json, not its own error', async () => {
    const app = server();
    try {
      const res = await app.inject({ method: 'GET', url: '/thing/%zz' });
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    } finally {
      await app.close();
    }
  });
});

describe('API8 security misconfiguration: errors before a request exists', () => {
  it('answers headers larger than Node accepts with 431 problem+json, not plain JSON', async () => {
    const app = server();
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const { port } = app.server.address() as AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/thing`, { headers: { 'x-big': 'a'.repeat(20_000) } });
      expect(res.status).toBe(431);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(await res.json()).toMatchObject({ status: 431, code: 'HEADERS_TOO_LARGE' });
    } finally {
      await app.close();
    }
  });
});

describe('API4 unrestricted resource consumption: slow clients', () => {
  it('cuts a request whose body trickles in past the request timeout', async () => {
    const app = server({ requestTimeoutMs: 1000 });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const { port } = app.server.address() as AddressInfo;
      const socket = connect(port, '127.0.0.1');
      const received: Buffer[] = [];
      socket.on('data', (chunk) => received.push(chunk));
      const closed = new Promise<number>((resolve) => {
        const started = Date.now();
        socket.on('close', () => resolve(Date.now() - started));
      });
      socket.write(
        'POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
      );
      // The client never sends the other 99 bytes.
      const elapsed = await closed;
      expect(elapsed).toBeLessThan(5000);
      const answer = Buffer.concat(received).toString();
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
      expect(answer).toMatch(/content-type: application\/problem\+json/);
    } finally {
      await app.close();
    }
  });
});
