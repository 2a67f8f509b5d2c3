// The ADOT collector beside each service (src/telemetry.ts, docs/deploy.md
// "Traces"): tail sampling keeps every trace with an error, a retry or a dead
// letter and a ratio of the rest; `-c traceEndpoint=` sends them to an OTLP
// endpoint instead of X-Ray.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { collectorConfig } from '../src/telemetry.ts';
import { synthesize } from './synth.ts';
import { type ResourceJson, resourcesOfType, type TemplateJson } from './template.ts';

interface Policy {
  name: string;
  type: string;
  status_code?: { status_codes: string[] };
  numeric_attribute?: { key: string; min_value: number; max_value: number };
  string_attribute?: { key: string; values: string[]; enabled_regex_matching?: boolean };
  probabilistic?: { sampling_percentage: number };
}
interface CollectorConfig {
  receivers: { otlp: { protocols: { http: { endpoint: string } } } };
  processors: { tail_sampling: { decision_wait: string; policies: Policy[] } };
  exporters: Record<string, { endpoint?: string }>;
  service: { pipelines: { traces: { receivers: string[]; processors: string[]; exporters: string[] } } };
}

/** Each task's collector configuration and its task role's X-Ray actions. */
function deployedCollectors(context: Record<string, unknown> = {}) {
  const json = synthesize(context).template.toJSON() as TemplateJson;
  const tasks = resourcesOfType(json, 'AWS::ECS::TaskDefinition');
  const configs = tasks.map(([, task]) => {
    const collector = task.Properties.ContainerDefinitions.find(
      (c: { Name: string }) => c.Name === 'collector',
    );
    const env = collector.Environment.find((e: { Name: string }) => e.Name === 'AOT_CONFIG_CONTENT');
    return parse(env.Value as string) as CollectorConfig;
  });
  const xray = resourcesOfType(json, 'AWS::IAM::Policy').flatMap(([, policy]: [string, ResourceJson]) =>
    (policy.Properties.PolicyDocument.Statement as { Action: string | string[] }[])
      .flatMap((s) => [s.Action].flat())
      .filter((a) => a.startsWith('xray:')),
  );
  return { tasks, configs, xray };
}

/** Whether the policy keeps a trace holding a span with this status and these attributes. */
function keeps(
  policy: Policy,
  span: { status?: 'ERROR' | 'OK'; attributes?: Record<string, string | number> },
) {
  const attr = (key: string) => span.attributes?.[key];
  switch (policy.type) {
    case 'status_code':
      return policy.status_code!.status_codes.includes(span.status ?? 'UNSET');
    case 'numeric_attribute': {
      const v = attr(policy.numeric_attribute!.key);
      return (
        typeof v === 'number' &&
        v >= policy.numeric_attribute!.min_value &&
        v <= policy.numeric_attribute!.max_value
      );
    }
    case 'string_attribute': {
      const v = attr(policy.string_attribute!.key);
      return (
        typeof v === 'string' &&
        policy.string_attribute!.values.some((p) =>
          policy.string_attribute!.enabled_regex_matching ? new RegExp(p).test(v) : p === v,
        )
      );
    }
    default:
      return false;
  }
}

// The default stack, synthesized once at load (seconds of CPU; minutes on a loaded machine).
const defaults = deployedCollectors();

describe('the ADOT collector of every task', () => {
  it('tail-samples: every error, redelivery, retried job and dead letter, and 10 % of the rest', () => {
    const { tasks, configs, xray } = defaults;
    expect(configs.length).toBe(tasks.length);
    for (const config of configs) {
      expect(config.receivers.otlp.protocols.http.endpoint).toBe('127.0.0.1:4318');
      // Sampling after the memory limiter, batching after sampling.
      expect(config.service.pipelines.traces.processors).toEqual([
        'memory_limiter',
        'tail_sampling',
        'batch',
      ]);
      expect(config.service.pipelines.traces.exporters).toEqual(['awsxray']);
      const policies = config.processors.tail_sampling.policies;
      const kept = (span: Parameters<typeof keeps>[1]) => policies.some((p) => keeps(p, span));
      // The spans libs/messaging and bullmq-otel write for each case.
      expect(kept({ status: 'ERROR' })).toBe(true);
      expect(kept({ attributes: { 'messaging.message.delivery_count': 2 } })).toBe(true);
      expect(kept({ attributes: { 'bullmq.job.attempts.made': 1 } })).toBe(true);
      expect(kept({ attributes: { 'messaging.destination.name': 'staging-notifications-inbox-dlq' } })).toBe(
        true,
      );
      // A first delivery that went well is left to the ratio.
      expect(kept({ status: 'OK', attributes: { 'messaging.message.delivery_count': 1 } })).toBe(false);
      expect(kept({ attributes: { 'bullmq.job.attempts.made': 0 } })).toBe(false);
      expect(kept({ attributes: { 'messaging.destination.name': 'notifications-inbox' } })).toBe(false);
      expect(policies.filter((p) => p.type === 'probabilistic')).toEqual([
        { name: 'the-rest', type: 'probabilistic', probabilistic: { sampling_percentage: 10 } },
      ]);
    }
    expect(xray).toContain('xray:PutTraceSegments');
  });

  it('keeps the ratio of -c traceSampleRatio', () => {
    const { configs } = deployedCollectors({ traceSampleRatio: '0.25' });
    for (const config of configs) {
      const ratio = config.processors.tail_sampling.policies.find((p) => p.type === 'probabilistic');
      expect(ratio?.probabilistic?.sampling_percentage).toBe(25);
    }
    expect(
      (
        parse(collectorConfig({ sampleRatio: 0.001 })) as CollectorConfig
      ).processors.tail_sampling.policies.at(-1)?.probabilistic?.sampling_percentage,
    ).toBe(0.1);
  });

  it('sends the traces to -c traceEndpoint instead of X-Ray, and then grants no X-Ray calls', () => {
    const { configs, xray } = deployedCollectors({ traceEndpoint: 'https://tempo.example.com:4318' });
    for (const config of configs) {
      expect(config.exporters).toEqual({ otlphttp: { endpoint: 'https://tempo.example.com:4318' } });
      expect(config.service.pipelines.traces.exporters).toEqual(['otlphttp']);
    }
    expect(xray).toEqual([]);
  });
});
