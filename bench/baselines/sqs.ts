import { randomUUID } from 'node:crypto';
import {
  DeleteMessageBatchCommand,
  type MessageAttributeValue,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';

/** One ReceiveMessage(10) and a DeleteMessageBatch of what came; returns how many. */
async function receiveAndDelete(sqs: SQSClient, queueUrl: string, waitSeconds: number): Promise<number> {
  const received = await sqs.send(
    new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: waitSeconds }),
  );
  const messages = received.Messages ?? [];
  if (messages.length === 0) return 0;
  await sqs.send(
    new DeleteMessageBatchCommand({
      QueueUrl: queueUrl,
      Entries: messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle })),
    }),
  );
  return messages.length;
}

/** Baseline: SendMessageBatch(10) → ReceiveMessage(10) → DeleteMessageBatch by N workers, no library code. */
export async function sqsBaseline(
  sqs: SQSClient,
  queueUrl: string,
  options: { messages: number; workers: number },
): Promise<number> {
  const body = JSON.stringify({ specversion: '1.0', id: randomUUID(), type: 'job.closed.v1', data: {} });
  const started = performance.now();
  let sent = 0;
  let deleted = 0;
  const worker = async () => {
    while (sent < options.messages) {
      sent += 10;
      // Fresh entries per call: the SDK's middleware works on the input objects.
      const entries = Array.from({ length: 10 }, (_, i) => ({ Id: String(i), MessageBody: body }));
      await sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
      // Short poll: another worker may have taken this batch, and a long poll
      // with every worker waiting would measure the wait, not the emulator.
      const count = await receiveAndDelete(sqs, queueUrl, 0);
      deleted += count;
    }
  };
  await Promise.all(Array.from({ length: options.workers }, worker));
  // Drain what the last receives left behind.
  while (deleted < sent) {
    const count = await receiveAndDelete(sqs, queueUrl, 1);
    if (count === 0) break;
    deleted += count;
  }
  return deleted / ((performance.now() - started) / 1000);
}

/**
 * Baseline for sending alone: SendMessageBatch(10) of the given entries by N
 * workers, nothing received. Returns messages sent per second.
 */
export async function sqsSendBaseline(
  sqs: SQSClient,
  queueUrl: string,
  options: {
    messages: number;
    workers: number;
    entry: (i: number) => { MessageBody: string; MessageAttributes?: Record<string, MessageAttributeValue> };
  },
): Promise<number> {
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < options.messages) {
      const first = next;
      next = Math.min(options.messages, next + 10);
      const entries = Array.from({ length: next - first }, (_, i) => ({
        Id: String(i),
        ...options.entry(first + i),
      }));
      const result = await sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
      if ((result.Failed ?? []).length > 0)
        throw new Error(`baseline send failed: ${result.Failed![0]!.Code}`);
    }
  };
  await Promise.all(Array.from({ length: options.workers }, worker));
  return options.messages / ((performance.now() - started) / 1000);
}

/**
 * Baseline for latency: SendMessage at `ratePerSecond` while one long-poll
 * receiver (ReceiveMessage(10), then DeleteMessageBatch) takes them; returns
 * each message's send-start → received latency (ms). The emulator's own
 * share of any pipeline latency measured beside it.
 */
export async function sqsLatencyBaseline(
  sqs: SQSClient,
  queueUrl: string,
  options: { ratePerSecond: number; messages: number },
): Promise<number[]> {
  const sentAt = new Map<string, number>();
  const latencies: number[] = [];
  let done = false;
  const receiver = (async () => {
    while (!done || latencies.length < options.messages) {
      const received = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
      );
      const now = performance.now();
      const messages = received.Messages ?? [];
      if (messages.length === 0) {
        if (done) break;
        continue;
      }
      for (const m of messages) {
        const at = sentAt.get(m.Body ?? '');
        if (at !== undefined) latencies.push(now - at);
      }
      await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle })),
        }),
      );
    }
  })();
  const interval = 1000 / options.ratePerSecond;
  const started = performance.now();
  const sends: Promise<unknown>[] = [];
  for (let i = 0; i < options.messages; i++) {
    const wait = started + i * interval - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    const body = JSON.stringify({ n: i, id: randomUUID() });
    sentAt.set(body, performance.now());
    sends.push(sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body })));
  }
  await Promise.all(sends);
  done = true;
  await receiver;
  return latencies;
}
