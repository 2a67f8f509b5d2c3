import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseMetrics, select } from '@hireflow/ops';

// What an operator sees, for tests: a process's Prometheus metrics and the
// alerts it posts to a webhook.

/**
 * The value of one sample in Prometheus text, matched by name and the given
 * labels (others ignored); undefined when no sample matches.
 */
export function metricValue(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  return select(parseMetrics(text), name, labels)[0]?.value;
}

/** Scrapes `${adminUrl}/metrics` and reads one sample (see `metricValue`). */
export async function scrapeMetric(
  adminUrl: string,
  name: string,
  labels: Record<string, string> = {},
): Promise<number | undefined> {
  const res = await fetch(`${adminUrl}/metrics`);
  if (!res.ok) throw new Error(`${adminUrl}/metrics answered ${res.status}`);
  return metricValue(await res.text(), name, labels);
}

export interface WebhookReceiver<T> {
  url: string;
  /** Every JSON body posted, in order of arrival. */
  received: T[];
  close(): Promise<void>;
}

/** An HTTP endpoint on 127.0.0.1 that keeps the JSON bodies posted to it (answers 204). */
export async function startWebhookReceiver<T = unknown>(): Promise<WebhookReceiver<T>> {
  const received: T[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as T);
        res.writeHead(204).end();
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/alerts`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
