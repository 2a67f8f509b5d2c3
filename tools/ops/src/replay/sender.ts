import { setTimeout as sleep } from 'node:timers/promises';
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { escapeForSqs } from '@hireflow/contracts';
import type { LoggedEvent } from '@hireflow/messaging';
// The light entry points: a command line should not load the outbox, BullMQ and Postgres.
import { eventAttributes } from '@hireflow/messaging/attributes';
import { fullJitter } from '@hireflow/messaging/backoff';
import { messageGroupIdOfEvent } from '@hireflow/messaging/message-group';

/** SendMessageBatch takes at most 10 entries. */
export const SQS_MAX_BATCH = 10;
/** AWS refuses a whole batch over 256 KiB; keep a margin for attributes and framing (as the outbox relay does). */
export const SQS_MAX_BATCH_BYTES = 240 * 1024;

/** A batch the queue would not take after every attempt; nothing after it was sent. */
export class ReplaySendError extends Error {
  override readonly name = 'ReplaySendError';
  readonly code = 'REPLAY_SEND_FAILED';
}

/** Events in SendMessageBatch-sized groups, in log order: at most 10 entries and 240 KiB each. */
export function batchesOf(items: LoggedEvent[]): LoggedEvent[][] {
  const batches: LoggedEvent[][] = [];
  let batch: LoggedEvent[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = entryBytes(item);
    if (batch.length > 0 && (batch.length === SQS_MAX_BATCH || bytes + size > SQS_MAX_BATCH_BYTES)) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(item);
    bytes += size;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

function entryBytes(item: LoggedEvent): number {
  const trace = Object.values(item.trace).reduce((n, v) => n + (v?.length ?? 0), 0);
  return Buffer.byteLength(JSON.stringify(item.event)) + trace + 512;
}

export interface SendOptions {
  /** Tries per entry before the replay stops (default 6). */
  attempts?: number;
  /** Full-jitter backoff between tries, in ms (default 200 doubling to 5 000). */
  backoff?: { base: number; cap: number };
}

/**
 * Sends one batch straight to the queue as the topic would have delivered it
 * (raw delivery): the CloudEvent JSON as the body, the `type` attribute, the
 * `lane` attribute `bulk`, the trace context the event was published with,
 * and its tenant as MessageGroupId (as the relay publishes it: on an AWS fair
 * queue a replay is its tenants' work, not a crowd of tenants of its own). A character SQS cannot carry (an event logged before the contracts
 * refused it) is sent as a JSON escape (escapeForSqs): the body parses to the
 * same event, which the consumer's validation then dead-letters, and the
 * replay goes on. Entries the queue reports
 * failed, or a call that failed, are tried again with full jitter; a sender
 * fault (the queue refusing the entry itself) or the last attempt throws.
 */
export async function sendBatch(
  sqs: SQSClient,
  queueUrl: string,
  batch: LoggedEvent[],
  options: SendOptions = {},
): Promise<void> {
  const attempts = options.attempts ?? 6;
  const backoff = options.backoff ?? { base: 200, cap: 5000 };
  let pending = batch;
  for (let attempt = 0; pending.length > 0; attempt++) {
    let lastError = '';
    try {
      const response = await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: pending.map((item, i) => ({
            Id: String(i),
            MessageBody: escapeForSqs(JSON.stringify(item.event)),
            // A replay is bulk work: consumers put what it causes behind interactive work (docs/fairness.md).
            MessageAttributes: eventAttributes(item.event.type, item.trace, 'bulk'),
            MessageGroupId: messageGroupIdOfEvent(item.event),
          })),
        }),
      );
      const failed = response.Failed ?? [];
      const fault = failed.find((f) => f.SenderFault);
      if (fault) {
        throw new ReplaySendError(
          `the queue refused event ${pending[Number(fault.Id)]!.event.id}: ${fault.Code} ${fault.Message ?? ''}`.trim(),
        );
      }
      pending = failed.map((f) => pending[Number(f.Id)]!);
      lastError = failed.map((f) => f.Code).join(', ');
    } catch (error) {
      if (error instanceof ReplaySendError) throw error;
      lastError = (error as Error).name;
    }
    if (pending.length === 0) return;
    if (attempt + 1 >= attempts) {
      throw new ReplaySendError(
        `${pending.length} events could not be sent after ${attempts} tries (${lastError}); the first is ${pending[0]!.event.id}`,
      );
    }
    await sleep(fullJitter(attempt, backoff));
  }
}
