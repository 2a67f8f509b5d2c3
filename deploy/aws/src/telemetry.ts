// Traces go from each service over OTLP/HTTP to an ADOT collector beside it in
// the same task (127.0.0.1:4318), which sends them to X-Ray. The services keep
// their one setting (OTEL_EXPORTER_OTLP_ENDPOINT); X-Ray needs signed requests,
// which the collector makes with the task role.
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import { COLLECTOR_MEMORY_MIB } from './plan.ts';

export const OTLP_ENDPOINT = 'http://127.0.0.1:4318';

/**
 * The OpenTelemetry SDK's own variables: the sidecar, and a sampler that
 * decides at the root and is followed downstream (the traceparent's sampled
 * flag crosses SNS and SQS), so a kept trace is whole.
 */
export const telemetryEnvironment = (sampleRatio: number): Record<string, string> => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: OTLP_ENDPOINT,
  OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
  OTEL_TRACES_SAMPLER_ARG: String(sampleRatio),
});

/**
 * Traces only: metrics stay Prometheus on the admin port (a scraper in the
 * VPC), logs go to CloudWatch through the awslogs driver. Loopback only:
 * nothing outside the task can send spans in.
 */
export const COLLECTOR_CONFIG = `receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:4318
processors:
  memory_limiter:
    check_interval: 1s
    limit_mib: ${COLLECTOR_MEMORY_MIB - 32}
  batch:
    timeout: 5s
exporters:
  awsxray:
    index_all_attributes: false
service:
  pipelines:
    traces:
      receivers: [otlp]
      processors: [memory_limiter, batch]
      exporters: [awsxray]
`;

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
): ecs.ContainerDefinition {
  return task.addContainer('collector', {
    image: ecs.ContainerImage.fromRegistry(image),
    essential: false,
    memoryReservationMiB: COLLECTOR_MEMORY_MIB,
    environment: { AOT_CONFIG_CONTENT: COLLECTOR_CONFIG },
    logging,
  });
}
