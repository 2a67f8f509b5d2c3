import { randomUUID } from 'node:crypto';
import { IdempotencyInProgressError } from '@hireflow/idempotency';
import { type IdempotencySignal, signals } from '@hireflow/telemetry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMailer, type Mailer } from '../src/modules/email/mailer.ts';
import { claimSend } from '../src/modules/intents/store.ts';
import { queuedWelcome, testEmailProcessor, useNotificationsHarness } from './harness.ts';

// The email worker's claim on the notification log row (migration 1008)
// replaced the idempotency wrapper's claim, and with it the wrapper's
// `hireflow_idempotency_total` counts: a send found done is a duplicate, one
// held by another holder in progress, as before. And the claim does not wait
// behind another transaction holding the row (an inbox batch): held, retry later.

const h = useNotificationsHarness('notif-claim-held', { worker: false });

const outcomes: IdempotencySignal[] = [];
let stop: () => void = () => undefined;
let mailer: Mailer;
beforeAll(() => {
  stop = signals.idempotency.subscribe((signal) => outcomes.push(signal));
  mailer = createMailer({ url: h.smtp.url, from: 'test@hireflow.local', poolSize: 1, timeoutMs: 5000 });
});
afterAll(() => {
  stop();
  mailer.close();
});

const queued = (name: string) => queuedWelcome(h, name);
const processor = () => testEmailProcessor(h, mailer);

/**
 * Long enough for a loaded machine to answer a claim; the claim the lock
 * would make wait would wait until the test releases it, after this.
 */
const HELD_WITHIN_MS = 10_000;

const task = (key: string) =>
  ({ data: { key }, attemptsMade: 0, opts: { attempts: 3 } }) as Parameters<ReturnType<typeof processor>>[0];

/** What `promise` settled with, or `'still waiting'` when it had not within `ms`. */
async function within<T>(promise: Promise<T>, ms: number) {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'still waiting'>((resolve) => {
    timer = setTimeout(() => resolve('still waiting'), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Another connection's open transaction holding the row's lock, as an inbox
 * batch updating it does, until `release()` rolls it back.
 */
async function lockRow(key: string): Promise<{ release(): Promise<void> }> {
  let locked!: () => void;
  let release!: () => void;
  const isLocked = new Promise<void>((resolve) => {
    locked = resolve;
  });
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const transaction = h.deps.orm.em
    .fork()
    .transactional(async (tx) => {
      await tx.execute('SELECT 1 FROM notification_log WHERE key = ? FOR UPDATE', [key]);
      locked();
      await released;
      throw new Error('rolled back');
    })
    .catch(() => undefined);
  await isLocked;
  return {
    async release() {
      release();
      await transaction;
    },
  };
}

const counted = (outcome: IdempotencySignal['outcome'], from: number) =>
  outcomes.slice(from).filter((o) => o.outcome === outcome).length;

async function row(key: string) {
  const [found] = await h.deps.orm.em
    .fork()
    .execute<{ status: string; attempts: number; send_token: string | null }[]>(
      'SELECT status, attempts, send_token FROM notification_log WHERE key = ?',
      [key],
    );
  return found;
}

describe("the send claim beside another transaction's row lock", () => {
  it('returns at once as held, not after the other transaction ends', async () => {
    const key = await queued('locked');
    const holder = await lockRow(key);
    let settled: Awaited<ReturnType<typeof within>>;
    try {
      settled = await within(claimSend(h.deps.orm.em.fork(), key, randomUUID(), 15_000), HELD_WITHIN_MS);
    } finally {
      await holder.release();
    }
    expect(settled).not.toBe('still waiting');
    expect(settled).toHaveProperty('error');
    expect((settled as { error: unknown }).error).toBeInstanceOf(IdempotencyInProgressError);
    // Nothing was taken: once the lock is gone the send is claimed as usual.
    expect((await row(key))?.send_token).toBeNull();
    const claim = await claimSend(h.deps.orm.em.fork(), key, randomUUID(), 15_000);
    expect(claim?.claimed).toBe(true);
  });

  it('makes the email task come back later: no attempt counted, nothing sent, counted in progress', async () => {
    const key = await queued('locked-task');
    const before = outcomes.length;
    const holder = await lockRow(key);
    let settled: Awaited<ReturnType<typeof within>>;
    try {
      settled = await within(processor()(task(key)), HELD_WITHIN_MS);
    } finally {
      await holder.release();
    }
    expect(settled).not.toBe('still waiting');
    const error = (settled as { error?: { code?: string; retryable?: boolean } }).error;
    expect(error?.code).toBe('IDEMPOTENCY_IN_PROGRESS');
    expect(error?.retryable).toBe(true);
    expect(await row(key)).toMatchObject({ status: 'queued', attempts: 0, send_token: null });
    expect(h.smtp.byKey(key)).toHaveLength(0);
    expect(counted('in-progress', before)).toBe(1);
    // The lock gone, the task's next run sends it.
    await processor()(task(key));
    expect(h.smtp.byKey(key)).toHaveLength(1);
  });
});

describe('the idempotency counts of the email worker', () => {
  it('counts a send found done as a duplicate, and sends nothing', async () => {
    const key = await queued('done');
    const sent = await processor()(task(key));
    const before = outcomes.length;
    expect(await processor()(task(key))).toEqual(sent);
    expect(h.smtp.byKey(key)).toHaveLength(1);
    expect(counted('duplicate', before)).toBe(1);
    expect(counted('in-progress', before)).toBe(0);
  });

  it('counts a send held by a live holder as in progress', async () => {
    const key = await queued('held');
    const holder = await claimSend(h.deps.orm.em.fork(), key, randomUUID(), 60_000);
    expect(holder?.claimed).toBe(true);
    const before = outcomes.length;
    await expect(processor()(task(key))).rejects.toBeInstanceOf(IdempotencyInProgressError);
    expect(counted('in-progress', before)).toBe(1);
    expect(counted('duplicate', before)).toBe(0);
    expect(h.smtp.byKey(key)).toHaveLength(0);
  });

  it('counts nothing for a first send', async () => {
    const key = await queued('first');
    const before = outcomes.length;
    await processor()(task(key));
    expect(outcomes.length).toBe(before);
  });
});
