// The demo's webhook step: an endpoint on `pnpm start`'s local receiver,
// registered through the public API as an integrator would, and what it
// received, read from the receiver's page (docs/webhooks.md).
import { randomUUID } from 'node:crypto';
import type { HireflowClient } from '@hireflow/client';
import { DemoError, poll } from './api.ts';

/** What the local receiver lists at `/api/deliveries` (tools/launcher/src/webhook-receiver.ts). */
interface Received {
  seq: number;
  path: string;
  webhookId: string;
  type: string;
  copy: number;
  traceId: string | undefined;
  verified: boolean | null;
  verification: string;
  body: { data?: Record<string, unknown> } | undefined;
}

export interface DemoEndpoint {
  id: string;
  /** The receiver's base URL. */
  receiver: string;
  /** The endpoint's path on the receiver. */
  path: string;
}

export const DEMO_WEBHOOK_EVENTS = ['posting.matched', 'upload.ready'] as const;

/**
 * Registers an endpoint of the tenant on the receiver (`POST /v1/webhooks`)
 * and hands its secret, shown this once, to the receiver so it verifies the
 * signatures of what arrives there.
 */
export async function registerEndpoint(
  api: HireflowClient,
  receiver: string,
  tag: string,
): Promise<DemoEndpoint> {
  const path = `/in/demo-${tag}`;
  const created = await api.webhooks.create(
    {
      url: `${receiver}${path}`,
      events: [...DEMO_WEBHOOK_EVENTS],
      description: `pnpm demo ${tag}`,
    },
    { idempotencyKey: randomUUID() },
  );
  const handed = await fetch(`${receiver}/api/endpoints`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ path, secret: created.secret }),
  });
  if (handed.status !== 204) throw new DemoError(`the webhook receiver refused the secret: ${handed.status}`);
  return { id: created.id, receiver, path };
}

/**
 * Waits until the endpoint received the posting's `posting.matched` and the
 * upload's `upload.ready`, then prints each delivery: its webhook-id, the
 * receiver's verification, the receiver's page of it and its trace.
 */
export async function showWebhooks(
  endpoint: DemoEndpoint,
  wanted: { jobId: string; uploadId: string },
  options: { traces: string | undefined; timeoutMs: number },
  say: (line: string) => void,
): Promise<void> {
  const mine = (d: Received) =>
    d.path === endpoint.path &&
    ((d.type === 'posting.matched' && d.body?.data?.jobId === wanted.jobId) ||
      (d.type === 'upload.ready' && d.body?.data?.uploadId === wanted.uploadId));
  let seen: Received[] = [];
  await poll(async () => {
    const all = (await (await fetch(`${endpoint.receiver}/api/deliveries`)).json()) as Received[];
    seen = all.filter(mine);
    return DEMO_WEBHOOK_EVENTS.every((type) => seen.some((d) => d.type === type)) ? true : undefined;
  }, options.timeoutMs);
  say(`Webhooks (endpoint ${endpoint.id} on the local receiver, ${endpoint.receiver}):`);
  for (const type of DEMO_WEBHOOK_EVENTS) {
    const got = seen.filter((d) => d.type === type);
    if (got.length === 0) say(`   ${type.padEnd(16)} not received yet`);
    for (const d of got) {
      const trace = d.traceId
        ? `trace ${options.traces ? `${options.traces}/trace/` : ''}${d.traceId}`
        : 'no trace';
      say(
        `   ${type.padEnd(16)} ${d.webhookId}${d.copy > 1 ? ` (copy ${d.copy})` : ''}  ${d.verification}  ${endpoint.receiver}/deliveries/${d.seq}  ${trace}`,
      );
    }
  }
  const failed = seen.find((d) => d.verified !== true);
  if (failed) throw new DemoError(`webhook ${failed.webhookId}: ${failed.verification}`);
}
