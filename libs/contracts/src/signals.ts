import { channel } from 'node:diagnostics_channel';

// What the libraries report for metrics, through Node's diagnostics
// channels: a library publishes (nearly free with nobody listening), the
// process's metrics subscribe (libs/runtime). No library depends on the
// metrics client, and no service wires an observer by hand. A contract
// between the publishers and the metrics, so it lives here: the packed
// @hireflow/messaging publishes on these channels without the telemetry SDK.

export interface MessageSignal {
  /** The queue's logical name (no topology prefix). */
  queue: string;
  type: string | undefined;
  outcome: 'handled' | 'failed' | 'retry-later' | 'deferred' | 'dead-lettered' | 'superseded';
  durationMs?: number | undefined;
  /** Now minus SQS's SentTimestamp at receive. */
  ageMs?: number | undefined;
}

export interface JobSignal {
  queue: string;
  name: string;
  outcome: 'completed' | 'failed' | 'dead';
  durationMs?: number | undefined;
}

export interface IdempotencySignal {
  /** `duplicate`: a completed key, its work not run again; `in-progress`: another holder runs it. */
  outcome: 'duplicate' | 'in-progress';
}

export interface EmailSignal {
  /** `capped`: held over its address's daily cap (no address in the signal). */
  outcome: 'sent' | 'failed' | 'suppressed' | 'held' | 'capped';
  template: string;
}

export interface WebhookSignal {
  /** An attempt's outcome (delivered, failed, gone, refused), or an endpoint disabled. */
  outcome: 'delivered' | 'failed' | 'gone' | 'refused' | 'endpoint-disabled';
  /** The attempt's latency (attempts only). */
  latencyMs?: number | undefined;
}

/** The backlog of each tenant with work waiting in one lane of a fair queue (no tenant ids). */
export interface TenantBacklogSignal {
  queue: string;
  lane: 'interactive' | 'bulk';
  /** One number per tenant with tasks waiting: how many. */
  backlogs: number[];
}

const channels = {
  message: channel('hireflow:sqs-message'),
  job: channel('hireflow:bullmq-job'),
  idempotency: channel('hireflow:idempotency'),
  email: channel('hireflow:email'),
  webhook: channel('hireflow:webhook'),
  tenantBacklog: channel('hireflow:tenant-backlog'),
};

function signal<T>(name: keyof typeof channels) {
  const ch = channels[name];
  return {
    publish(value: T): void {
      if (ch.hasSubscribers) ch.publish(value);
    },
    subscribe(listener: (value: T) => void): () => void {
      const handler = (value: unknown) => listener(value as T);
      ch.subscribe(handler);
      return () => ch.unsubscribe(handler);
    },
  };
}

export const signals = {
  message: signal<MessageSignal>('message'),
  job: signal<JobSignal>('job'),
  idempotency: signal<IdempotencySignal>('idempotency'),
  email: signal<EmailSignal>('email'),
  webhook: signal<WebhookSignal>('webhook'),
  tenantBacklog: signal<TenantBacklogSignal>('tenantBacklog'),
};
