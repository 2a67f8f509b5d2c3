import { randomUUID } from 'node:crypto';
import { loadConfig } from '@hireflow/matching/config';
import { HandlerSpy } from '@hireflow/messaging/testing';
import { type Closeable, connectDeps, createLogger, type ServiceDeps } from '@hireflow/runtime';
import { startTcpProxy, type TcpProxy, waitFor } from '@hireflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../src/db/schema.ts';
import type { Embedder } from '../src/modules/embedding/embedder.ts';
import { FeatureHashingEmbedder } from '../src/modules/embedding/feature-hashing.ts';
import { createMatchQueue } from '../src/modules/matches/queue.ts';
import type { Computation } from '../src/modules/matches/service.ts';
import { startWorker } from '../src/worker.ts';
import { type MatchingHarness, startMatchingHarness } from './harness.ts';
import { candidate, fitting, role } from './profiles.ts';

// A Postgres failover while a posting's computation runs (docs/design.md,
// "Dependencies that are only unavailable"). With production defaults the
// review cut Postgres for 140 s against 8 attempts with backoff from 1 s;
// here the BullMQ retry budget is scaled down instead: MATCH_ATTEMPTS=3 with
// the default backoff base of 1 s is at most 1 + 2 = 3 s of waits, and the
// cut lasts CUT_MS = 20 s, several times that whole budget. On a worker that
// counts such failures the computation is a dead letter within seconds and
// the posting never leaves `processing`.

const CUT_MS = 20_000;
const ATTEMPTS = 3;

let h: MatchingHarness;
let proxy: TcpProxy;
let deps: ServiceDeps | undefined;
let worker: Closeable[] = [];
beforeAll(async () => {
  h = await startMatchingHarness('match-pg-outage', { MATCH_ATTEMPTS: String(ATTEMPTS) });
  proxy = await startTcpProxy({ port: Number(new URL(h.db.url).port) });
});
afterAll(async () => {
  proxy?.restore();
  for (const part of worker) await part.close();
  await deps?.close();
  await proxy?.close();
  await h?.close();
});

describe('a Postgres cut longer than the BullMQ retry budget, during a computation', () => {
  it('is waited out: the posting is matched after it, with one job.matched.v1', async () => {
    const through = new URL(h.db.url);
    through.port = String(proxy.port);
    // The worker role reaches Postgres through the proxy; the test reads it directly.
    const config = loadConfig({
      LOG_LEVEL: 'silent',
      DATABASE_URL: through.toString(),
      AWS_ENDPOINT_URL: h.config.AWS_ENDPOINT_URL!,
      HIREFLOW_TOPOLOGY_PREFIX: h.topology.prefix,
      REDIS_PREFIX: h.config.REDIS_PREFIX,
      MATCH_ATTEMPTS: String(ATTEMPTS),
    });
    deps = await connectDeps(config, {
      service: 'matching',
      migrations,
      env: {},
      log: createLogger('matching', 'silent'),
    });
    // The embedder runs between the computation's reads and its transaction: the cut starts there.
    const hashing = new FeatureHashingEmbedder();
    let armed = false;
    let cutAt = 0;
    const embedder: Embedder = {
      id: hashing.id,
      dims: hashing.dims,
      embed: async (texts) => {
        if (armed) {
          armed = false;
          cutAt = Date.now();
          proxy.cut();
          setTimeout(() => proxy.restore(), CUT_MS);
        }
        return hashing.embed(texts);
      },
    };
    const spy = new HandlerSpy();
    const computations: Computation[] = [];
    worker = await startWorker(config, deps, {
      embedder,
      onMessage: spy.observer,
      onComputed: (c) => computations.push(c),
    });

    const tenantId = randomUUID();
    const candidates = fitting.map((p) => candidate(tenantId, p));
    await Promise.all(candidates.map((event) => h.publish(event)));
    await waitFor(() => computations.filter((c) => c.kind === 'candidate').length >= 3 || undefined, {
      timeoutMs: 60_000,
      message: 'candidates computed',
    });

    armed = true;
    const posted = role(tenantId);
    const postingId = posted.data.jobId;
    await h.publish(posted);
    const computed = await waitFor(
      () => computations.find((c) => c.kind === 'posting' && c.id === postingId),
      {
        timeoutMs: 180_000,
        intervalMs: 200,
        message: 'posting computed after the cut',
      },
    );
    expect(computed).toMatchObject({ outcome: 'computed', newMatches: 3 });
    expect(cutAt).toBeGreaterThan(0);
    expect(Date.now() - cutAt).toBeGreaterThanOrEqual(CUT_MS);

    const matched = await waitFor(
      () => {
        const events = h.eventsAbout(postingId).filter((e) => e.type === 'job.matched.v1');
        return events.length > 0 ? events : undefined;
      },
      { timeoutMs: 60_000, message: 'job.matched.v1 published' },
    );
    expect(matched.map((e) => (e.data as { matchCount: number }).matchCount)).toEqual([3]);

    // The task completed within its attempts: the cut spent none of them.
    const queue = createMatchQueue({ connection: h.deps.redis, prefix: h.config.REDIS_PREFIX, attempts: 1 });
    try {
      const tasks = await queue.tasks.queue.getJobs(['completed']);
      const task = tasks.find((t) => t.data.kind === 'posting' && t.data.jobId === postingId);
      expect(task?.attemptsMade).toBe(1);
      expect(await queue.tasks.deadLetterCount()).toBe(0);
    } finally {
      await queue.close();
    }
    // One summary: the one transaction that computed the posting wrote one job.matched.v1.
    const written = (await h.outboxAbout(postingId)).map((r) => r.type);
    expect(written.filter((t) => t === 'job.matched.v1')).toHaveLength(1);
  }, 300_000);
});
