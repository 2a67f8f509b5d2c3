// Traces go from each service over OTLP/HTTP to an ADOT collector beside it in
// the same task (127.0.0.1:4318), which decides which traces to keep (tail
// sampling) and sends them to X-Ray, or to any OTLP endpoint (`-c
// traceEndpoint=`: a team's own Jaeger or Tempo). The services keep their one
// setting (OTEL_EXPORTER_OTLP_ENDPOINT); X-Ray needs signed requests, which the
// collector makes with the task role.
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import { COLLECTOR_MEMORY_MIB } from './plan.ts';

export const OTLP_ENDPOINT = 'http://127.0.0.1:4318';

/**
 * The OpenTelemetry SDK's own variables: the sidecar. No sampler: the SDK's
 * default (libs/telemetry: parent-based, every root kept, transaction framing
 * statements dropped) sends every span to the sidecar, which keeps or drops
 * whole traces once it has seen how they ended.
 */
export const telemetryEnvironment = (): Record<string, string> => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: OTLP_ENDPOINT,
});

export interface TracingSettings {
  /** Share of the traces without an error, retry or dead letter that is kept (0–1). */
  sampleRatio: number;
  /** An OTLP/HTTP endpoint that takes the traces instead of X-Ray. */
  endpoint?: string | undefined;
}

/** How long the collector holds a trace's spans before deciding: a message's handling, retries aside, is within it. */
export const TAIL_DECISION_WAIT_SECONDS = 10;

/**
 * The collector's configuration. Traces only: metrics stay Prometheus on the
 * admin port (a scraper in the VPC), logs go to CloudWatch through the
 * awslogs driver. Loopback only: nothing outside the task can send spans in.
 *
 * Tail sampling keeps every trace in which a span
 * - failed (status ERROR: a handler threw, a job failed, a publish failed),
 * - is a redelivery (`messaging.message.delivery_count` ≥ 2, SQS) or a retried
 *   job (`bullmq.job.attempts.made` ≥ 1),
 * - sent a message to a DLQ (`messaging.destination.name` ends in `-dlq`),
 * and the others by `sampleRatio`, hashed on the trace id, so every task's
 * collector keeps the same share of the same traces.
 */
export function collectorConfig(tracing: TracingSettings): string {
  const percentage = Math.round(tracing.sampleRatio * 100 * 1000) / 1000;
  const exporter = tracing.endpoint
    ? `  otlphttp:
    endpoint: ${JSON.stringify(tracing.endpoint)}
`
    : `  awsxray:
    index_all_attributes: false
`;
  return `receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:4318
processors:
  memory_limiter:
    check_interval: 1s
    limit_mib: ${COLLECTOR_MEMORY_MIB - 32}
  tail_sampling:
    decision_wait: ${TAIL_DECISION_WAIT_SECONDS}s
    num_traces: 20000
    expected_new_traces_per_sec: 100
    policies:
      - name: errors
        type: status_code
        status_code:
          status_codes: [ERROR]
      - name: sqs-redeliveries
        type: numeric_attribute
        numeric_attribute:
          key: messaging.message.delivery_count
          min_value: 2
          max_value: 1000000
      - name: bullmq-retries
        type: numeric_attribute
        numeric_attribute:
          key: bullmq.job.attempts.made
          min_value: 1
          max_value: 1000000
      - name: dead-letters
        type: string_attribute
        string_attribute:
          key: messaging.destination.name
          values: ['.*-dlq$']
          enabled_regex_matching: true
      - name: the-rest
        type: probabilistic
        probabilistic:
          sampling_percentage: ${percentage}
  batch:
    timeout: 5s
exporters:
${exporter}service:
  pipelines:
    traces:
      receivers: [otlp]
      processors: [memory_limiter, tail_sampling, batch]
      exporters: [${tracing.endpoint ? 'otlphttp' : 'awsxray'}]
`;
}

/** The configuration with the stack's defaults (10 %, X-Ray). */
export const COLLECTOR_CONFIG = collectorConfig({ sampleRatio: 0.1 });

/** What the collector calls, with the task role: X-Ray's write and sampling APIs, which take no resource. */
export const collectorStatement = (): iam.PolicyStatement =>
  new iam.PolicyStatement({
    sid: 'TracesToXRay',
    actions: [
      'xray:PutTraceSegments',
      'xray:PutTelemetryRecords',
      'xray:GetSamplingRules',
      'xray:GetSamplingTargets',
    ],
    resources: ['*'],
  });

/** The sidecar; not essential: without it a service runs on and only loses its spans. */
export function addCollector(
  task: ecs.FargateTaskDefinition,
  image: string,
  logging: ecs.LogDriver,
  tracing: TracingSettings = { sampleRatio: 0.1 },
): ecs.ContainerDefinition {
  return task.addContainer('collector', {
    image: ecs.ContainerImage.fromRegistry(image),
    essential: false,
    memoryReservationMiB: COLLECTOR_MEMORY_MIB,
    environment: { AOT_CONFIG_CONTENT: collectorConfig(tracing) },
    logging,
  });
}
