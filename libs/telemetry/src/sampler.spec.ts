import { context, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { AlwaysOffSampler, type Sampler, SamplingDecision } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { QuietStatementsSampler, samplerFromEnv } from './sampler.ts';

const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const sampledParent = trace.setSpanContext(ROOT_CONTEXT, {
  traceId,
  spanId: '00f067aa0ba902b7',
  traceFlags: 1,
  isRemote: false,
});
const decide = (sampler: Sampler, name: string, parent = sampledParent) =>
  sampler.shouldSample(parent, traceId, name, SpanKind.CLIENT, {}, []).decision;

describe('QuietStatementsSampler', () => {
  it('records no span for statements that only frame a transaction', () => {
    const sampler = new QuietStatementsSampler();
    for (const name of [
      'pg.query:BEGIN hireflow_jobs',
      'pg.query:COMMIT hireflow_jobs',
      'pg.query:ROLLBACK hireflow_jobs',
      'pg.query:SAVEPOINT hireflow_jobs',
      'pg.query:RELEASE hireflow_jobs',
      'pg.query:SET hireflow_jobs',
    ]) {
      expect(decide(sampler, name), name).toBe(SamplingDecision.NOT_RECORD);
    }
  });

  it('records the statements that do the work, and everything else, as the parent was', () => {
    const sampler = new QuietStatementsSampler();
    for (const name of [
      'pg.query:INSERT hireflow_jobs',
      'pg.query:WITH hireflow_jobs',
      'pg.query:SELECT hireflow_jobs',
      'process jobs-inbox',
      'smtp send',
      // A table or a word that starts like one is not a framing statement.
      'pg.query:BEGINNINGS hireflow_jobs',
    ]) {
      expect(decide(sampler, name), name).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    }
    // Unsampled parent: not recorded (parent-based by default).
    const unsampled = trace.setSpanContext(ROOT_CONTEXT, {
      traceId,
      spanId: '00f067aa0ba902b7',
      traceFlags: 0,
      isRemote: true,
    });
    expect(decide(sampler, 'pg.query:INSERT hireflow_jobs', unsampled)).toBe(SamplingDecision.NOT_RECORD);
    expect(context.active()).toBe(ROOT_CONTEXT);
  });

  it('leaves every other decision to its delegate', () => {
    const sampler = new QuietStatementsSampler(new AlwaysOffSampler());
    expect(decide(sampler, 'pg.query:INSERT hireflow_jobs')).toBe(SamplingDecision.NOT_RECORD);
    expect(sampler.toString()).toContain('AlwaysOffSampler');
  });
});

describe('samplerFromEnv', () => {
  it('is the quiet default unless OTEL_TRACES_SAMPLER names another, applied as it is', () => {
    expect(samplerFromEnv({})).toBeInstanceOf(QuietStatementsSampler);
    expect(samplerFromEnv({ OTEL_TRACES_SAMPLER: 'bogus' })).toBeInstanceOf(QuietStatementsSampler);
    expect(samplerFromEnv({ OTEL_TRACES_SAMPLER: 'always_off' }).toString()).toBe('AlwaysOffSampler');
    const ratio = samplerFromEnv({
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.1',
    });
    expect(ratio.toString()).toContain('root=TraceIdRatioBased{0.1}');
    // A BEGIN is recorded when the operator's sampler says so: theirs is applied as it is.
    expect(decide(samplerFromEnv({ OTEL_TRACES_SAMPLER: 'always_on' }), 'pg.query:BEGIN x')).toBe(
      SamplingDecision.RECORD_AND_SAMPLED,
    );
    expect(
      samplerFromEnv({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '7' }).toString(),
    ).toBe('TraceIdRatioBased{1}');
  });
});
