import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { type LocalHttpServer, startLocalServer } from '@hireflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Gateway, startGateway } from '../src/gateway.ts';

// The local gateway (`pnpm start`'s one base URL) in front of two stand-in
// services that say who answered and what they received.

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  bytes: number;
}

function standIn(name: string, seen: Seen[], streams: { closed: number }) {
  return startLocalServer((req, res) => {
    let bytes = 0;
    req.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, bytes });
      if (req.url?.endsWith('/events')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('event: status\ndata: {"n":1}\n\n');
        // The answer stays open: the client sees the event before it ends (nothing is buffered on the way).
        res.once('close', () => streams.closed++);
        return;
      }
      res.writeHead(201, {
        'content-type': 'application/json',
        'x-served-by': name,
        connection: 'keep-alive',
      });
      res.end(JSON.stringify({ name, bytes }));
    });
  });
}

describe('the API gateway (pnpm start)', () => {
  const seen: Seen[] = [];
  const streams = { closed: 0 };
  let jobs: LocalHttpServer;
  let media: LocalHttpServer;
  let gateway: Gateway;

  beforeAll(async () => {
    jobs = await standIn('jobs', seen, streams);
    media = await standIn('media', seen, streams);
    gateway = await startGateway({ port: 0 });
  });
  afterAll(async () => {
    await gateway?.stop();
    await jobs?.close();
    await media?.close();
  });

  it('answers 503 for a service that is not listening yet', async () => {
    const res = await fetch(`${gateway.url}/v1/jobs`);
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.headers.get('retry-after')).toBe('1');
    gateway.setTargets({ jobs: jobs.url, media: media.url });
  });

  it('sends each path to the service that serves it, with the request as sent', async () => {
    const cases = [
      ['/v1/jobs?limit=5', 'jobs'],
      ['/v1/jobs/abc/events-not', 'jobs'],
      ['/v1/candidates/x/matches', 'jobs'],
      ['/v1/uploads', 'media'],
      ['/media/u/thumb.webp', 'media'],
    ] as const;
    for (const [path, service] of cases) {
      const res = await fetch(`${gateway.url}${path}`, {
        method: 'POST',
        headers: {
          authorization: 'Bearer hf_x',
          'idempotency-key': 'k1',
          'content-type': 'application/json',
        },
        body: '{"a":1}',
      });
      expect(res.status, path).toBe(201);
      expect(res.headers.get('x-served-by'), path).toBe(service);
      const last = seen.at(-1)!;
      expect(last).toMatchObject({ method: 'POST', url: path, bytes: 7 });
      expect(last.headers).toMatchObject({ authorization: 'Bearer hf_x', 'idempotency-key': 'k1' });
      // Adds nothing of its own but the client's address, as the load balancer does.
      expect(last.headers['x-forwarded-for']).toBe('127.0.0.1');
    }
  });

  it('API2: appends the client address to an X-Forwarded-For the client sent (the services trust only the last hop)', async () => {
    const res = await fetch(`${gateway.url}/v1/jobs`, { headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect(res.status).toBe(201);
    expect(seen.at(-1)!.headers['x-forwarded-for']).toBe('203.0.113.9, 127.0.0.1');
  });

  it('API4: cuts a client that trickles its headers (headers timeout), without asking a service', async () => {
    const strict = await startGateway({ port: 0, headersTimeoutMs: 1000 });
    const count = seen.length;
    try {
      const socket = connect(Number(new URL(strict.url).port), '127.0.0.1');
      let answer = '';
      socket.on('data', (chunk: Buffer) => {
        answer += chunk.toString('latin1');
      });
      socket.on('error', () => undefined);
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      socket.write('GET /v1/jobs HTTP/1.1\r\nHost: gateway\r\n');
      // A header line a byte at a time, never finished, until the gateway gives up.
      let sent = 0;
      const trickle = setInterval(() => {
        if (!socket.destroyed) socket.write(sent++ === 0 ? 'x-slow: ' : 'a');
      }, 100);
      await closed;
      clearInterval(trickle);
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
      expect(seen.length).toBe(count);
    } finally {
      await strict.stop();
    }
  });

  it('streams a large body up and answers without buffering it', async () => {
    const body = randomBytes(3 * 1024 * 1024);
    const res = await fetch(`${gateway.url}/v1/uploads`, { method: 'POST', body });
    expect(await res.json()).toEqual({ name: 'media', bytes: body.length });
  });

  it('streams Server-Sent Events as they come, and closes the upstream stream when the client leaves', async () => {
    const controller = new AbortController();
    const res = await fetch(`${gateway.url}/v1/jobs/abc/events`, { signal: controller.signal });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = res.body!.getReader();
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value)).toContain('data: {"n":1}');
    const before = streams.closed;
    controller.abort();
    await expect.poll(() => streams.closed, { timeout: 5000, interval: 20 }).toBe(before + 1);
  });

  it('answers 404 problem+json for a path that is not public, without asking a service', async () => {
    const count = seen.length;
    for (const path of ['/internal/api-keys/x', '/health/ready', '/v1/jobsx', '/metrics']) {
      const res = await fetch(`${gateway.url}${path}`);
      expect(res.status, path).toBe(404);
      expect(((await res.json()) as { code: string }).code).toBe('NOT_FOUND');
    }
    expect(seen.length).toBe(count);
  });

  it('answers 502 problem+json when the service does not answer', async () => {
    const down = await startLocalServer(() => undefined);
    await down.close();
    gateway.setTargets({ media: down.url });
    const res = await fetch(`${gateway.url}/v1/uploads/x`);
    expect(res.status).toBe(502);
    expect(((await res.json()) as { code: string }).code).toBe('BAD_GATEWAY');
    gateway.setTargets({ media: media.url });
  });
});
