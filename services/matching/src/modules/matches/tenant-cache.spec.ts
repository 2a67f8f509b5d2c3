import { describe, expect, it } from 'vitest';
import { TenantCache } from './tenant-cache.ts';

const unit = (...values: number[]) => Float32Array.from(values);
const options = (now: () => number) => ({ dims: 2, modelId: 'm', idleMs: 1000, now });

describe('TenantCache', () => {
  it('runs one user of a tenant at a time, and different tenants side by side', async () => {
    const cache = new TenantCache(options(Date.now));
    const log: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const first = cache.use('a', async () => {
      log.push('a1 start');
      await gate;
      log.push('a1 end');
    });
    const second = cache.use('a', async () => {
      log.push('a2');
    });
    await cache.use('b', async () => {
      log.push('b');
    });
    expect(log).toEqual(['a1 start', 'b']);
    release();
    await Promise.all([first, second]);
    expect(log).toEqual(['a1 start', 'b', 'a1 end', 'a2']);
  });

  it('applies changes in order: candidates, open postings, closed postings leave', async () => {
    const cache = new TenantCache(options(Date.now));
    await cache.use('t', async (state) => {
      state.apply({ kind: 'candidate', id: 'c', seq: 3n, vector: unit(1, 0), skills: ['go'] }, 'm');
      state.apply(
        {
          kind: 'posting',
          id: 'p',
          seq: 5n,
          status: 'open',
          vector: unit(1, 0),
          skills: ['go'],
        },
        'm',
      );
      expect(state.candidates.has('c')).toBe(true);
      expect(state.postings.has('p')).toBe(true);
      expect(state.lastSeq).toBe(5n);
      state.apply({ kind: 'posting', id: 'p', seq: 9n, status: 'closed', vector: null, skills: [] }, 'm');
      expect(state.postings.has('p')).toBe(false);
      expect(state.lastSeq).toBe(9n);
      // a vector of another model is refused (it must be re-embedded first)
      expect(() =>
        state.apply({ kind: 'candidate', id: 'x', seq: 10n, vector: unit(0, 1), skills: [] }, 'other'),
      ).toThrow(/re-embed/);
    });
  });

  it('keeps each tenant in indexes of its own: a search sees one tenant only', async () => {
    const cache = new TenantCache(options(Date.now));
    await cache.use('a', async (state) => {
      state.apply({ kind: 'candidate', id: 'c', seq: 1n, vector: unit(1, 0), skills: [] }, 'm');
    });
    const query = { vector: unit(1, 0), skills: [] };
    await cache.use('b', async (state) => {
      expect(state.candidates.search(query)).toEqual([]);
      expect(state.lastSeq).toBe(0n);
    });
    await cache.use('a', async (state) => {
      expect(state.candidates.search(query).map((hit) => hit.id)).toEqual(['c']);
    });
    expect(() => cache.use('', async () => undefined)).toThrow(/tenantId/);
  });

  it('drops the state of a tenant whose user failed, so the next use reloads it', async () => {
    const cache = new TenantCache(options(Date.now));
    await cache.use('t', async (state) => {
      state.lastSeq = 7n;
    });
    await expect(
      cache.use('t', async () => {
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await cache.use('t', async (state) => {
      expect(state.lastSeq).toBe(0n);
    });
  });

  it('frees tenants idle past idleMs, never one in use', async () => {
    let now = 0;
    const cache = new TenantCache(options(() => now));
    await cache.use('idle', async () => undefined);
    let release!: () => void;
    let started!: () => void;
    const running = new Promise<void>((r) => {
      started = r;
    });
    const busy = cache.use('busy', () => {
      started();
      return new Promise<void>((r) => {
        release = r;
      });
    });
    await running;
    now = 5000;
    expect(cache.evictIdle()).toEqual(['idle']);
    expect(cache.tenants()).toEqual(['busy']);
    release();
    await busy;
    now = 5999;
    expect(cache.evictIdle()).toEqual([]);
    now = 6000;
    expect(cache.evictIdle()).toEqual(['busy']);
  });
});
