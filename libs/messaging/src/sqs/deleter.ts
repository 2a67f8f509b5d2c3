import { DeleteMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Logger } from '../logger.ts';
import { untraced } from '../quiet.ts';

interface Pending {
  receiptHandle: string;
  resolve: () => void;
}

/**
 * Deletes handled messages in DeleteMessageBatch calls of up to 10: a batch
 * goes when it is full or `lingerMs` after its first entry. A failed delete
 * is logged, not thrown: the message comes back and the idempotent handler
 * skips it.
 */
export class BatchDeleter {
  readonly #sqs: SQSClient;
  readonly #queueUrl: string;
  readonly #log: Logger;
  readonly #lingerMs: number;
  #pending: Pending[] = [];
  #timer: NodeJS.Timeout | undefined;
  readonly #inFlight = new Set<Promise<void>>();

  constructor(sqs: SQSClient, queueUrl: string, log: Logger, lingerMs = 5) {
    this.#sqs = sqs;
    this.#queueUrl = queueUrl;
    this.#log = log;
    this.#lingerMs = lingerMs;
  }

  delete(receiptHandle: string): Promise<void> {
    return new Promise((resolve) => {
      this.#pending.push({ receiptHandle, resolve });
      if (this.#pending.length >= 10) this.#send();
      else this.#timer ??= setTimeout(() => this.#send(), this.#lingerMs);
    });
  }

  /** Sends what is pending and waits for every batch in flight. */
  async flush(): Promise<void> {
    this.#send();
    await Promise.all(this.#inFlight);
  }

  #send(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#pending.splice(0, 10);
    if (this.#pending.length > 0) this.#timer = setTimeout(() => this.#send(), 0);
    if (batch.length === 0) return;
    const call = this.#deleteBatch(batch).finally(() => this.#inFlight.delete(call));
    this.#inFlight.add(call);
  }

  async #deleteBatch(batch: Pending[]): Promise<void> {
    try {
      // Several messages at once, belonging to none of their traces (as the heartbeat).
      const result = await untraced(() =>
        this.#sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: this.#queueUrl,
            Entries: batch.map((p, i) => ({ Id: String(i), ReceiptHandle: p.receiptHandle })),
          }),
        ),
      );
      for (const failed of result.Failed ?? []) {
        this.#log.warn(
          { code: failed.Code, message: failed.Message },
          'delete failed; the message will be redelivered',
        );
      }
    } catch (error) {
      this.#log.warn({ err: error }, 'DeleteMessageBatch failed; the messages will be redelivered');
    } finally {
      for (const p of batch) p.resolve();
    }
  }
}
