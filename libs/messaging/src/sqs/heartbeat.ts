import { ChangeMessageVisibilityBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Logger } from '../logger.ts';
import { untraced } from '../quiet.ts';

export interface Lease {
  receiptHandle: string;
  /** Last time the message's visibility was set (ms). */
  extendedAt: number;
  /** Set once the handler finished: a settled message is not extended again. */
  settled: boolean;
  /** The extension in flight, awaited before the message's final visibility change. */
  pending?: Promise<void>;
}

/**
 * Keeps running messages invisible: every `intervalMs`, messages whose
 * visibility was last set at least `intervalMs` ago get the full timeout
 * again (ChangeMessageVisibilityBatch, 10 per call).
 */
export class Heartbeat {
  readonly #sqs: SQSClient;
  readonly #queueUrl: string;
  readonly #log: Logger;
  readonly #leases: () => Iterable<Lease>;
  #timer: NodeJS.Timeout | undefined;
  #intervalMs = 0;
  #timeoutSeconds = 0;

  constructor(sqs: SQSClient, queueUrl: string, log: Logger, leases: () => Iterable<Lease>) {
    this.#sqs = sqs;
    this.#queueUrl = queueUrl;
    this.#log = log;
    this.#leases = leases;
  }

  start(intervalMs: number, timeoutSeconds: number): void {
    this.stop();
    this.#intervalMs = intervalMs;
    this.#timeoutSeconds = timeoutSeconds;
    // Tick at a fraction of the interval so a lease is never extended much later than due.
    this.#timer = setInterval(() => this.#tick(), Math.max(50, Math.floor(intervalMs / 4)));
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #tick(): void {
    const now = Date.now();
    const due = [...this.#leases()].filter(
      (l) => !l.settled && !l.pending && now - l.extendedAt >= this.#intervalMs,
    );
    for (let i = 0; i < due.length; i += 10) {
      const chunk = due.slice(i, i + 10);
      const call = this.#extend(chunk, now);
      for (const lease of chunk) {
        lease.pending = call.finally(() => {
          lease.pending = undefined;
        });
      }
    }
  }

  async #extend(leases: Lease[], now: number): Promise<void> {
    try {
      // Housekeeping of several messages at once, belonging to none of their traces.
      const result = await untraced(() =>
        this.#sqs.send(
          new ChangeMessageVisibilityBatchCommand({
            QueueUrl: this.#queueUrl,
            Entries: leases.map((l, i) => ({
              Id: String(i),
              ReceiptHandle: l.receiptHandle,
              VisibilityTimeout: this.#timeoutSeconds,
            })),
          }),
        ),
      );
      const failed = new Set((result.Failed ?? []).map((f) => f.Id));
      leases.forEach((l, i) => {
        if (!failed.has(String(i))) l.extendedAt = now;
      });
      if (failed.size > 0)
        this.#log.warn({ failed: failed.size }, 'visibility heartbeat failed for some messages');
    } catch (error) {
      this.#log.warn({ err: error }, 'visibility heartbeat failed');
    }
  }
}
