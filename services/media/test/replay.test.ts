import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AnyEvent, createEvent, topology } from '@hireflow/contracts';
import type { ProvisionedTopology } from '@hireflow/ops';
import {
  adminEventLog,
  CheckpointFile,
  planReplay,
  type ReplayOptions,
  replayEvents,
  replayTarget,
} from '@hireflow/ops/replay';
import { hashApiKey } from '@hireflow/runtime';
import { type TestAws, testAws, testTopology } from '@hireflow/testing';
import { startTestProducer, type TestProducer } from '@hireflow/testing/producer';
import { sampleEvent } from '@hireflow/testing/samples';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { png } from './fixtures/images.ts';
import { filePart, type MediaHarness, startMediaHarness } from './harness.ts';

// media authenticates with its projection of jobs' API keys. A media database
// created after the keys were issued never saw their events; a replay of
// jobs' log into media-inbox brings them (docs/replay.md). The same goes for
// the owners of uploads (job.posted.v1, candidate.registered.v1).

interface Key {
  key: string;
  keyId: string;
  tenantId: string;
  revoked: boolean;
}

let aws: TestAws;
let live: ProvisionedTopology;
let producer: TestProducer;
let dir: string;

beforeAll(async () => {
  aws = testAws();
  // jobs' stand-in publishes to a topology of its own: whatever was delivered
  // live went to queues the media below never reads.
  live = await testTopology(aws, 'media-replay-live');
  producer = await startTestProducer('media-replay-jobs', {
    sns: aws.sns,
    topicArns: { 'jobs-events': live.topics['jobs-events']!.arn },
  });
  dir = await mkdtemp(join(tmpdir(), 'hf-media-replay-'));
});
afterAll(async () => {
  await producer?.close();
  aws?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** `count` keys issued through the producer, every fourth revoked afterwards; returns them and their events once logged. */
async function issueKeys(count: number): Promise<{ keys: Key[]; events: AnyEvent[] }> {
  const keys = Array.from({ length: count }, (_, i) => ({
    key: `hf_${randomBytes(32).toString('base64url')}`,
    keyId: randomUUID(),
    tenantId: randomUUID(),
    revoked: i % 4 === 3,
  }));
  const events: AnyEvent[] = keys.map((k) =>
    createEvent(
      'apikey.issued.v1',
      {
        keyId: k.keyId,
        tenantId: k.tenantId,
        keyHash: hashApiKey(k.key),
        issuedAt: new Date().toISOString(),
      },
      { source: 'hireflow/jobs', subject: k.keyId },
    ),
  );
  for (const k of keys.filter((k) => k.revoked)) {
    events.push(
      createEvent(
        'apikey.revoked.v1',
        { keyId: k.keyId, tenantId: k.tenantId, revokedAt: new Date().toISOString() },
        { source: 'hireflow/jobs', subject: k.keyId },
      ),
    );
  }
  await producer.commit(events);
  await producer.waitLogged(events.map((e) => e.id));
  return { keys, events };
}

/** Waits until every one of these events was handled `times` times. */
async function handled(h: MediaHarness, events: AnyEvent[], times: number) {
  for (const event of events) await h.spy.waitForCount({ eventId: event.id, outcome: 'handled' }, times);
}

async function replayInto(h: MediaHarness, options: Partial<ReplayOptions> = {}) {
  return replayEvents({
    sqs: h.deps.sqs,
    queue: await replayTarget(h.deps.sqs, h.topology.prefix, 'media-inbox'),
    plan: planReplay(topology, { queue: 'media-inbox' }),
    sources: [adminEventLog({ producer: 'jobs', adminUrl: producer.adminUrl })],
    ratePerSecond: 0,
    ...options,
  });
}

/** 401 for a key media does not take; 404 (authenticated, no such upload) for one it does. */
const status = async (h: MediaHarness, key: string) =>
  (
    await h.app.inject({
      method: 'GET',
      url: `/v1/uploads/${randomUUID()}`,
      headers: { authorization: `Bearer ${key}` },
    })
  ).statusCode;

/** The projection as a map keyId → active. */
async function projection(h: MediaHarness, keys: Key[]) {
  const rows = await h.deps.orm.em.fork().execute<{ key_id: string; active: boolean; updated_at: Date }[]>(
    `SELECT key_id, (key_hash IS NOT NULL AND revoked_at IS NULL) AS active, updated_at
         FROM api_key WHERE key_id = ANY(?::uuid[]) ORDER BY key_id`,
    [`{${keys.map((k) => k.keyId).join(',')}}`],
  );
  return rows;
}

const expected = (keys: Key[]) =>
  Object.fromEntries(
    keys.map((k) => [k.keyId, !k.revoked]).sort(([a], [b]) => String(a).localeCompare(String(b))),
  );

describe('replaying API keys into a media that is newer than them', () => {
  it('makes keys issued before its database existed authenticate, and revoked ones stay refused', async () => {
    const { keys, events } = await issueKeys(8);
    const h = await startMediaHarness('media-replay-new');
    try {
      await h.startWorker();
      for (const k of keys) expect(await status(h, k.key)).toBe(401);

      const summary = await replayInto(h);
      expect(summary.interrupted).toBe(false);
      await handled(h, events, 1);
      // An unknown key is cached for a second: ask after it.
      for (const k of keys) {
        await expect
          .poll(() => status(h, k.key), { timeout: 5000, interval: 200 })
          .toBe(k.revoked ? 401 : 404);
      }
    } finally {
      await h.close();
    }
  });

  it('reaches the same end state when interrupted half-way and run again, and applies an event replayed twice once', async () => {
    const { keys, events } = await issueKeys(120);
    const h = await startMediaHarness('media-replay-resume');
    try {
      await h.startWorker();
      const checkpoint = new CheckpointFile(join(dir, 'media-inbox.json'));
      const controller = new AbortController();
      let seen = 0;
      const first = await replayInto(h, {
        checkpoint,
        ratePerSecond: 300,
        signal: controller.signal,
        onEvents: (items) => {
          seen += items.length;
          if (seen >= 60) controller.abort();
        },
      });
      expect(first).toMatchObject({ interrupted: true, resumed: false });
      expect(first.sent).toBeGreaterThanOrEqual(60);
      expect(await checkpoint.load()).toMatchObject({ sent: first.sent, finished: [] });

      const second = await replayInto(h, { checkpoint });
      expect(second).toMatchObject({ interrupted: false, resumed: true });
      expect(await checkpoint.load()).toBeUndefined();
      await handled(h, events, 1);
      const end = await projection(h, keys);
      expect(Object.fromEntries(end.map((r) => [r.key_id, r.active]))).toEqual(expected(keys));

      // Every event again (a fresh run, the same ids): each handled once more, and not one row changed.
      const again = await replayInto(h);
      // The second run sent only what the first had not: together, the log once.
      expect(first.sent + second.sent).toBe(again.sent);
      await handled(h, events, 2);
      expect(await projection(h, keys)).toEqual(end);
    } finally {
      await h.close();
    }
    // Two replay runs through the CLI's code path and a consumer draining each: slow on a loaded machine.
  }, 90_000);
});

describe('replaying owners into media (the backfill of its owners projection)', () => {
  it('attaches an upload that names a posting from before the projection existed, once its job.posted.v1 is replayed', async () => {
    const h = await startMediaHarness('media-replay-owners');
    try {
      await h.startWorker();
      const jobId = randomUUID();
      const res = await h.upload([
        { name: 'ownerType', data: 'job' },
        { name: 'ownerId', data: jobId },
        filePart(await png(32, 32)),
      ]);
      const id = res.json<{ id: string }>().id;
      const view = async () =>
        (await h.app.inject({ method: 'GET', url: `/v1/uploads/${id}`, headers: h.tenants.a.auth })).json<{
          ownerConfirmed?: boolean;
        }>();
      expect((await view()).ownerConfirmed).toBe(false);

      // The posting is in jobs' log (published before media's database existed).
      const posted = sampleEvent('job.posted.v1', { tenantId: h.tenants.a.tenantId, jobId });
      await producer.commit([posted]);
      await producer.waitLogged([posted.id]);
      const summary = await replayInto(h, {
        plan: planReplay(topology, { queue: 'media-inbox', types: ['job.posted.v1'] }),
      });
      expect(summary.interrupted).toBe(false);
      await h.spy.waitForHandled(posted.id);
      expect((await view()).ownerConfirmed).toBe(true);
    } finally {
      await h.close();
    }
  });
});
