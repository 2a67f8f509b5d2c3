import * as BullMQ from 'bullmq';
import { describe, expect, it } from 'vitest';
import { DelayedError, Queue, Worker } from './classes.ts';

describe("BullMQ's classes, required from their own files", () => {
  it('are the classes its index exports', () => {
    expect(Queue).toBe(BullMQ.Queue);
    expect(Worker).toBe(BullMQ.Worker);
    expect(DelayedError).toBe(BullMQ.DelayedError);
  });
});
