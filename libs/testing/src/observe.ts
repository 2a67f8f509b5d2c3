import { parseMetrics, select } from '@hireflow/ops';
import { readBody, startLocalServer } from './http-server.ts';

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
  const server = await startLocalServer(async (req, res) => {
    const body = (await readBody(req)).toString('utf8');
    try {
      received.push(JSON.parse(body) as T);
      res.writeHead(204).end();
    } catch {
      res.writeHead(400).end();
    }
  });
  return { url: `${server.url}/alerts`, received, close: server.close };
}
