// The fair queues' backlog signal (@hireflow/messaging publishes it) as the
// process's metric: a histogram per lane of how many tasks each tenant has
// waiting, with no tenant ids (docs/fairness.md).
import { type Lane, tenantBacklogs } from '@hireflow/messaging';
import { type BulkTask, createTaskQueue, type TaskQueue } from '@hireflow/messaging/tasks';
import { uniqueName, waitFor } from '@hireflow/testing';
import { ROOT_CONTEXT } from '@opentelemetry/api';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createMetrics } from '../src/index.ts';

const REDIS = 'redis://127.0.0.1:6379';

interface Work {
  tenant: string;
  n: number;
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

const flood = (tenant: string, count: number, lane: Lane = 'interactive'): BulkTask<Work>[] =>
  Array.from({ length: count }, (_, i) => ({
    name: 'work',
    data: { tenant, n: i },
    intentKey: `work:${tenant}:${i}`,
    context: ROOT_CONTEXT,
    tenantId: tenant,
    lane,
  }));

async function addFlood(queue: TaskQueue<Work>, tasks: BulkTask<Work>[]) {
  for (let i = 0; i < tasks.length; i += 100) await queue.addBulk(tasks.slice(i, i + 100));
}

describe('the tenant backlog metric', () => {
  it('reports each tenant’s backlog per lane as hireflow_tenant_backlog, a histogram with no tenant ids', async () => {
    const metrics = createMetrics('fair-test');
    cleanups.push(async () => metrics.close());
    const name = uniqueName('fair-backlog');
    const prefix = `hftest-${uniqueName('fair')}`;
    const queue = createTaskQueue<Work>({ name, prefix, connection: REDIS, fair: { backlogSampleMs: 100 } });
    cleanups.push(async () => {
      await queue.queue.obliterate({ force: true });
      await queue.close();
    });
    await addFlood(queue, flood('tenant-a', 30));
    await addFlood(queue, flood('tenant-b', 5));
    await addFlood(queue, flood('tenant-c', 3, 'bulk'));
    const redis = new Redis(REDIS);
    cleanups.push(() => redis.quit());
    const backlogs = await tenantBacklogs(queue.queue, redis);
    expect(backlogs.interactive.sort((x, y) => x - y)).toEqual([5, 30]);
    expect(backlogs.bulk).toEqual([3]);
    const text = await waitFor(async () => {
      const t = await metrics.text();
      return /hireflow_tenant_backlog_count\{[^}]*lane="bulk"/.test(t) ? t : undefined;
    });
    const line = (lane: string, suffix: string) =>
      text
        .split('\n')
        .find(
          (l) =>
            l.startsWith(`hireflow_tenant_backlog_${suffix}`) &&
            l.includes(`lane="${lane}"`) &&
            (suffix !== 'bucket' || l.includes('le="10"')),
        );
    expect(line('interactive', 'count')).toMatch(/ 2$/);
    expect(line('interactive', 'sum')).toMatch(/ 35$/);
    expect(line('interactive', 'bucket')).toMatch(/ 1$/); // B's 5 ≤ 10, A's 30 is not
    expect(text).not.toContain('tenant-a');
  });
});
