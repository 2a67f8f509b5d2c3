// Bull Board on the admin port, loaded on its first request (issue 31): the
// admin server's hooks guard it as any route, the page and its JSON API
// answer through the board's own Fastify instance, and an action (pausing a
// queue, which a read-only board refuses) reaches the real queue in Redis.
// The queue handles it shows are made on that first request too.
import { uniqueName } from '@hireflow/testing';
import { Queue } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BULL_BOARD_PATH,
  createAdminServer,
  createLogger,
  type QueueHandles,
  queueHandles,
} from '../src/index.ts';

const TOKEN = 'a-token-of-the-bull-board-test-0123456789';
const log = createLogger('runtime-test', 'silent');
const auth = { authorization: `Bearer ${TOKEN}` };

describe('Bull Board on the admin port', () => {
  const prefix = `test:${uniqueName('bull-board')}`;
  const name = uniqueName('board-queue');
  let redis: Redis;
  let queue: Queue;
  let admin: FastifyInstance;
  let readOnly: FastifyInstance;
  let handles: QueueHandles[] = [];
  let gets = 0;
  /** The service's handles on the queue, as connectDeps makes them, their first uses counted. */
  const handlesOnQueue = (): QueueHandles => {
    const made = queueHandles({ names: [name], redis, prefix, log });
    handles.push(made);
    return {
      names: made.names,
      get: () => {
        gets += 1;
        return made.get();
      },
      close: () => made.close(),
    };
  };

  beforeAll(async () => {
    redis = new Redis('redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
    queue = new Queue(name, { connection: redis, prefix });
    await queue.add('one', { n: 1 });
    admin = createAdminServer({ ADMIN_TOKEN: TOKEN }, { log, queues: handlesOnQueue() });
    readOnly = createAdminServer({}, { log, queues: handlesOnQueue() });
    await Promise.all([admin.ready(), readOnly.ready()]);
  });
  afterAll(async () => {
    await admin.close();
    await readOnly.close();
    await Promise.all(handles.map((made) => made.close()));
    handles = [];
    await queue.obliterate({ force: true });
    await queue.close();
    await redis.quit();
  });

  it('is guarded by the admin token before the board is reached', async () => {
    const res = await admin.inject({ method: 'GET', url: BULL_BOARD_PATH });
    expect(res.statusCode).toBe(401);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('serves its page and lists the queue with its job, its handles made on that first request', async () => {
    // Ready and listening (and asked without the token) is no use of the board.
    expect(gets).toBe(0);
    const page = await admin.inject({ method: 'GET', url: BULL_BOARD_PATH, headers: auth });
    expect(page.statusCode).toBe(200);
    expect(gets).toBe(1);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    // The page's scripts and styles come from the board too.
    const asset = /src="([^"]*static\/js\/[^"]+)"/.exec(page.body)?.[1];
    expect(asset).toBeDefined();
    const file = await admin.inject({
      method: 'GET',
      url: new URL(asset!, 'http://admin/admin/queues/').pathname,
      headers: auth,
    });
    expect(file.statusCode).toBe(200);
    expect(file.rawPayload.length).toBeGreaterThan(0);
    const api = await admin.inject({ method: 'GET', url: `${BULL_BOARD_PATH}/api/queues`, headers: auth });
    expect(api.statusCode).toBe(200);
    const listed = (api.json() as { queues: { name: string; counts: { waiting: number } }[] }).queues;
    expect(listed.find((q) => q.name === name)?.counts.waiting).toBe(1);
  });

  it('carries an action to the queue when the port has a token, and refuses it read-only', async () => {
    const url = `${BULL_BOARD_PATH}/api/queues/${encodeURIComponent(name)}/pause`;
    const refused = await readOnly.inject({ method: 'PUT', url });
    expect(refused.statusCode).toBeGreaterThanOrEqual(400);
    expect(await queue.isPaused()).toBe(false);
    const paused = await admin.inject({ method: 'PUT', url, headers: auth });
    expect(paused.statusCode).toBe(200);
    expect(await queue.isPaused()).toBe(true);
  });

  it('answers an unknown board path with 404', async () => {
    const res = await admin.inject({ method: 'GET', url: `${BULL_BOARD_PATH}/api/nope`, headers: auth });
    expect(res.statusCode).toBe(404);
  });
});
