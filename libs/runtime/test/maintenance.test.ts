import { waitFor } from '@hireflow/testing';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { startPeriodicTasks } from '../src/maintenance.ts';

describe('startPeriodicTasks', () => {
  it('runs each task on its interval, never overlapping itself, survives failures, and waits for a running task on close', async () => {
    let runs = 0;
    let concurrent = 0;
    let maxConcurrent = 0;
    let failures = 0;
    let release: (() => void) | undefined;
    const tasks = startPeriodicTasks(
      [
        {
          name: 'slow',
          intervalMs: 10,
          run: async () => {
            concurrent++;
            maxConcurrent = Math.max(maxConcurrent, concurrent);
            runs++;
            await new Promise<void>((resolve) => {
              release = resolve;
            });
            concurrent--;
          },
        },
        {
          name: 'failing',
          intervalMs: 10,
          run: async () => {
            failures++;
            throw new Error('boom');
          },
        },
      ],
      pino({ level: 'silent' }),
    );
    await waitFor(() => runs === 1 && failures >= 3);
    expect(maxConcurrent).toBe(1);
    release!();
    await waitFor(() => runs >= 2);
    let closed = false;
    const closing = tasks.close().then(() => {
      closed = true;
    });
    expect(closed).toBe(false);
    release!();
    await closing;
    expect(concurrent).toBe(0);
    expect(maxConcurrent).toBe(1);
  });
});
