import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { uniqueName, waitFor } from '@hireflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idempotent } from '../src/index.ts';
import { backends, effectsOf, openTestOrm, storedRow, type TestOrm, unlessInProgress } from './orm.ts';

// Holders in child processes, killed (SIGKILL) or stalled (SIGSTOP) while
// they hold a claim: the cases a single process cannot fake.
describe.each(backends)('$name: holders that die or stall', ({ name }) => {
  let db: TestOrm;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    db = await openTestOrm('idem-proc', 10, name);
  });
  afterAll(async () => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await db.close();
  });

  type Message = { ready?: true; result?: string; error?: string };

  async function startHolder(key: string, leaseMs: number, mode: 'lease' | 'transactional' | 'batch') {
    const child = spawn(
      process.execPath,
      [join(import.meta.dirname, 'fixtures/holder.ts'), db.url, key, String(leaseMs), mode, name],
      {
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      },
    );
    children.push(child);
    const messages: Message[] = [];
    child.on('message', (message: Message) => messages.push(message));
    await waitFor(() => messages.some((m) => m.ready) || child.exitCode !== null, { timeoutMs: 15_000 });
    expect(messages, 'the holder exited before it held the claim').toContainEqual({ ready: true });
    return { child, messages };
  }

  /** Calls until the key can be claimed: in-progress answers mean "not yet". */
  function takeOver(key: string, options: { transactional?: boolean } = {}) {
    let runs = 0;
    const attempt = () =>
      unlessInProgress(
        idempotent(db.target, { key, ...options }, async (em) => {
          runs++;
          await em.execute('INSERT INTO effect (id, key) VALUES (?, ?)', [`${key}-parent`, key]);
          return 'parent';
        }),
      );
    return { attempt, runs: () => runs };
  }

  it('a holder killed with SIGKILL: its claim outlives it until the lease ends, then the work runs once', async () => {
    const key = uniqueName('killed');
    const { child } = await startHolder(key, 3_000, 'lease');
    child.kill('SIGKILL');
    await once(child, 'exit');
    const parent = takeOver(key);
    expect(await parent.attempt()).toBe(false);
    expect(await waitFor(parent.attempt, { timeoutMs: 10_000 })).toBe('parent');
    expect(await parent.attempt()).toBe('parent');
    expect(parent.runs()).toBe(1);
    expect(await storedRow(db.orm, key)).toMatchObject({ status: 'completed', result: 'parent' });
  });

  it('a holder stalled past its lease (SIGSTOP): the next holder completes; the stale one’s late completion is refused', async () => {
    const key = uniqueName('stalled');
    const { child, messages } = await startHolder(key, 1_000, 'lease');
    child.kill('SIGSTOP');
    const parent = takeOver(key);
    expect(await waitFor(parent.attempt, { timeoutMs: 10_000 })).toBe('parent');
    child.kill('SIGCONT');
    child.send('finish');
    await waitFor(() => messages.find((m) => m.result ?? m.error), { timeoutMs: 10_000 });
    expect(messages.at(-1)).toEqual({ error: 'IDEMPOTENCY_LEASE_LOST' });
    expect(await storedRow(db.orm, key)).toMatchObject({ status: 'completed', result: 'parent' });
    expect(parent.runs()).toBe(1);
  });

  it('a transactional holder killed with SIGKILL: its claim and write roll back at once, the work runs once', async () => {
    const key = uniqueName('tx-killed');
    const { child } = await startHolder(key, 60_000, 'transactional');
    const parent = takeOver(key, { transactional: true });
    expect(await parent.attempt()).toBe(false);
    child.kill('SIGKILL');
    await once(child, 'exit');
    // no lease to wait out: the server rolls the dead session's transaction back
    expect(await waitFor(parent.attempt, { timeoutMs: 5_000 })).toBe('parent');
    expect(await effectsOf(db.orm, key)).toEqual([`${key}-parent`]);
  });

  it('a transactional holder stalled past its lease: the server ends its session, its write is rolled back', async () => {
    const key = uniqueName('tx-stalled');
    const { child, messages } = await startHolder(key, 1_000, 'transactional');
    child.kill('SIGSTOP');
    const parent = takeOver(key, { transactional: true });
    expect(await waitFor(parent.attempt, { timeoutMs: 10_000 })).toBe('parent');
    child.kill('SIGCONT');
    child.send('finish');
    await waitFor(() => messages.find((m) => m.result ?? m.error), { timeoutMs: 10_000 });
    expect(messages.at(-1)?.result).toBeUndefined();
    expect(await effectsOf(db.orm, key)).toEqual([`${key}-parent`]);
    expect(await storedRow(db.orm, key)).toMatchObject({ status: 'completed', result: 'parent' });
  });

  // The batcher writes its claims `completed` at once (as transactional mode):
  // no reader may ever see them before the batch commits with its works.
  it('a batch holder killed with SIGKILL mid-batch: no key of the batch ever reads completed, each runs once after', async () => {
    const key = uniqueName('batch-killed');
    const keys = [key, `${key}-second`];
    const { child } = await startHolder(key, 60_000, 'batch');
    // Claimed (the first work wrote, the second has not run): invisible, and held.
    for (const k of keys) {
      expect(await storedRow(db.orm, k)).toBeUndefined();
      expect(await takeOver(k, { transactional: true }).attempt()).toBe(false);
    }
    child.kill('SIGKILL');
    await once(child, 'exit');
    // no lease to wait out: the server rolls the dead session's batch back
    for (const k of keys) {
      const parent = takeOver(k, { transactional: true });
      expect(await waitFor(parent.attempt, { timeoutMs: 5_000 })).toBe('parent');
      expect(parent.runs()).toBe(1);
      expect(await effectsOf(db.orm, k)).toEqual([`${k}-parent`]);
      expect(await storedRow(db.orm, k)).toMatchObject({ status: 'completed', result: 'parent' });
    }
  });

  it('a batch holder stalled past its lease: its batch is rolled back, the next holder runs each key, the stale one gets their results', async () => {
    const key = uniqueName('batch-stalled');
    const keys = [key, `${key}-second`];
    const { child, messages } = await startHolder(key, 1_000, 'batch');
    child.kill('SIGSTOP');
    for (const k of keys) expect(await storedRow(db.orm, k)).toBeUndefined();
    const parents = keys.map((k) => takeOver(k, { transactional: true }));
    for (const parent of parents) expect(await waitFor(parent.attempt, { timeoutMs: 10_000 })).toBe('parent');
    child.kill('SIGCONT');
    child.send('finish');
    await waitFor(() => messages.find((m) => m.result ?? m.error), { timeoutMs: 10_000 });
    // Its batch failed with its session; each call then ran alone and found the key completed.
    expect(messages.at(-1)).toEqual({ result: 'parent,parent' });
    for (const [i, k] of keys.entries()) {
      expect(parents[i]!.runs()).toBe(1);
      expect(await effectsOf(db.orm, k)).toEqual([`${k}-parent`]);
      expect(await storedRow(db.orm, k)).toMatchObject({ status: 'completed', result: 'parent' });
    }
  });
});
