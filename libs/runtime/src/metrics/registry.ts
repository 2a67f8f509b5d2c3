import { signals } from '@hireflow/telemetry';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** Seconds buckets for handler and job durations: 1 ms to 1 min. */
const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Seconds buckets for how long a message waited: 10 ms to 1 h. */
const AGE_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600];

/**
 * A process's metrics (Prometheus text on the admin port's `/metrics`): Node's
 * own, what the libraries report through their diagnostics channels
 * (handlers, jobs, idempotency, emails), and the queue gauges the one
 * sampling process of a service sets (`QueueGauges`).
 */
export interface ServiceMetrics {
  registry: Registry;
  queues: QueueGauges;
  /**
   * Whether this process exports the queue gauges: only while it samples them
   * (it holds the service's sampler lease), so each queue appears once.
   */
  exportQueues(on: boolean): void;
  /** The Prometheus text of `/metrics`. */
  text(): Promise<string>;
  contentType: string;
  /** Stops listening to the libraries' signals (tests that make several). */
  close(): void;
}

export interface QueueGauges {
  sqsMessages: Gauge<'queue' | 'state'>;
  bullmqJobs: Gauge<'queue' | 'state'>;
  bullmqOldestWaitingAge: Gauge<'queue'>;
  deadLetters: Gauge<'queue' | 'kind'>;
  outboxBacklog: Gauge;
  outboxOldestUnsentAge: Gauge;
}

export function createMetrics(service: string): ServiceMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const handlerSeconds = new Histogram({
    name: 'hireflow_handler_duration_seconds',
    help: 'SQS event handler duration, by queue, event type and outcome.',
    labelNames: ['queue', 'type', 'outcome'],
    buckets: DURATION_BUCKETS,
    registers,
  });
  const messageAge = new Histogram({
    name: 'hireflow_message_age_seconds',
    help: 'How long a message waited in its queue before this receive (now − SentTimestamp).',
    labelNames: ['queue'],
    buckets: AGE_BUCKETS,
    registers,
  });
  const messages = new Counter({
    name: 'hireflow_messages_total',
    help: 'SQS messages by queue, event type and outcome (handled, failed, retry-later, deferred, dead-lettered, superseded).',
    labelNames: ['queue', 'type', 'outcome'],
    registers,
  });
  const jobSeconds = new Histogram({
    name: 'hireflow_job_duration_seconds',
    help: 'BullMQ job duration, by queue, job name and outcome (completed, failed, dead).',
    labelNames: ['queue', 'name', 'outcome'],
    buckets: DURATION_BUCKETS,
    registers,
  });
  const tenantBacklog = new Histogram({
    name: 'hireflow_tenant_backlog',
    help:
      'Tasks waiting per tenant in a fair queue, by lane, as last sampled: each tenant with work waiting is one ' +
      'observation (_count: tenants waiting, _sum: tasks waiting); no tenant ids (docs/fairness.md).',
    labelNames: ['queue', 'lane'],
    buckets: [1, 10, 100, 1000, 10_000, 100_000],
    registers,
  });
  const idempotency = new Counter({
    name: 'hireflow_idempotency_total',
    help: 'Work the idempotency wrapper did not run again: duplicate (already done), in-progress (another holder).',
    labelNames: ['outcome'],
    registers,
  });
  const emails = new Counter({
    name: 'hireflow_emails_total',
    help: 'Emails by outcome (sent, failed, suppressed, held) and template.',
    labelNames: ['outcome', 'template'],
    registers,
  });

  const webhookDeliveries = new Counter({
    name: 'hireflow_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome (delivered, failed, gone, refused).',
    labelNames: ['outcome'],
    registers,
  });
  const webhookAttemptSeconds = new Histogram({
    name: 'hireflow_webhook_attempt_duration_seconds',
    help: 'Webhook delivery attempt latency (connect to answer read), by outcome.',
    labelNames: ['outcome'],
    buckets: DURATION_BUCKETS,
    registers,
  });
  const webhookEndpointsDisabled = new Counter({
    name: 'hireflow_webhook_endpoints_disabled_total',
    help: 'Webhook endpoints disabled by the delivery worker (410 Gone, or failing for the retry window).',
    registers,
  });

  const unsubscribe = [
    signals.message.subscribe((m) => {
      messages.inc({ queue: m.queue, type: m.type ?? 'unknown', outcome: m.outcome });
      if (m.durationMs !== undefined) {
        handlerSeconds.observe(
          { queue: m.queue, type: m.type ?? 'unknown', outcome: m.outcome },
          m.durationMs / 1000,
        );
      }
      if (m.ageMs !== undefined) messageAge.observe({ queue: m.queue }, m.ageMs / 1000);
    }),
    signals.job.subscribe((j) => {
      if (j.durationMs !== undefined) {
        jobSeconds.observe({ queue: j.queue, name: j.name, outcome: j.outcome }, j.durationMs / 1000);
      }
    }),
    signals.idempotency.subscribe((i) => idempotency.inc({ outcome: i.outcome })),
    signals.email.subscribe((e) => emails.inc({ outcome: e.outcome, template: e.template })),
    signals.webhook.subscribe((w) => {
      if (w.outcome === 'endpoint-disabled') {
        webhookEndpointsDisabled.inc();
        return;
      }
      webhookDeliveries.inc({ outcome: w.outcome });
      if (w.latencyMs !== undefined)
        webhookAttemptSeconds.observe({ outcome: w.outcome }, w.latencyMs / 1000);
    }),
    signals.tenantBacklog.subscribe((b) => {
      // A snapshot, not a stream: the last sample's tenants replace the previous ones.
      tenantBacklog.remove({ queue: b.queue, lane: b.lane });
      for (const backlog of b.backlogs) tenantBacklog.observe({ queue: b.queue, lane: b.lane }, backlog);
    }),
  ];

  // The queue gauges live in a registry of their own, merged in only while this process samples.
  const queueRegistry = new Registry();
  queueRegistry.setDefaultLabels({ service });
  let exportingQueues = false;
  const queueRegisters = [queueRegistry];
  const queues: QueueGauges = {
    sqsMessages: new Gauge({
      name: 'hireflow_sqs_messages',
      help: "Messages in the service's inbox and its DLQ, by state (visible, inflight, delayed).",
      labelNames: ['queue', 'state'],
      registers: queueRegisters,
    }),
    bullmqJobs: new Gauge({
      name: 'hireflow_bullmq_jobs',
      help: "BullMQ's own job counts, by queue and state.",
      labelNames: ['queue', 'state'],
      registers: queueRegisters,
    }),
    bullmqOldestWaitingAge: new Gauge({
      name: 'hireflow_bullmq_oldest_waiting_age_seconds',
      help: 'Age of the oldest job waiting to run (0 when none waits).',
      labelNames: ['queue'],
      registers: queueRegisters,
    }),
    deadLetters: new Gauge({
      name: 'hireflow_dead_letters',
      help: 'Messages in a DLQ (kind=sqs) and jobs kept as dead letters after their last attempt (kind=bullmq).',
      labelNames: ['queue', 'kind'],
      registers: queueRegisters,
    }),
    outboxBacklog: new Gauge({
      name: 'hireflow_outbox_backlog',
      help: 'Outbox rows committed and not yet published.',
      registers: queueRegisters,
    }),
    outboxOldestUnsentAge: new Gauge({
      name: 'hireflow_outbox_oldest_unsent_age_seconds',
      help: 'Age of the oldest unpublished outbox row (0 when none).',
      registers: queueRegisters,
    }),
  };

  return {
    registry,
    queues,
    exportQueues: (on) => {
      exportingQueues = on;
    },
    text: async () =>
      exportingQueues ? await Registry.merge([registry, queueRegistry]).metrics() : await registry.metrics(),
    contentType: registry.contentType,
    close: () => {
      for (const stop of unsubscribe) stop();
    },
  };
}
