import { type Attributes, type Context, diag, type Link, type SpanKind } from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  type Sampler,
  SamplingDecision,
  type SamplingResult,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace';

/**
 * Statements that only frame a transaction (BEGIN, COMMIT, ROLLBACK,
 * SAVEPOINT, RELEASE, SET LOCAL): a span each said nothing the transaction's own
 * statements do not, and made a fifth of every story's spans.
 */
const FRAMING = /^pg\.query:(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|SET)\b/;
const PG_QUERY = 'pg.query:';

/**
 * Records no span for a statement that only frames a transaction; every
 * other span is decided by `delegate` (by default the SDK's own default:
 * parent-based, always on at the root). Such a statement never has a child,
 * so leaving it out orphans nothing.
 */
export class QuietStatementsSampler implements Sampler {
  private readonly delegate: Sampler;

  constructor(delegate: Sampler = new ParentBasedSampler({ root: new AlwaysOnSampler() })) {
    this.delegate = delegate;
  }

  shouldSample(
    context: Context,
    traceId: string,
    spanName: string,
    spanKind: SpanKind,
    attributes: Attributes,
    links: Link[],
  ): SamplingResult {
    // Most spans are no statement: a prefix check before the pattern.
    if (spanName.startsWith(PG_QUERY) && FRAMING.test(spanName)) {
      return { decision: SamplingDecision.NOT_RECORD };
    }
    return this.delegate.shouldSample(context, traceId, spanName, spanKind, attributes, links);
  }

  toString(): string {
    return `QuietStatementsSampler{${this.delegate.toString()}}`;
  }
}

/**
 * The sampler: `QuietStatementsSampler` in front of the SDK's default, or the
 * one `OTEL_TRACES_SAMPLER` (with `OTEL_TRACES_SAMPLER_ARG`) names, applied as
 * it is, as the specification's environment variables say (the AWS stack sets
 * `parentbased_traceidratio`). An unknown name falls back to the default.
 */
export function samplerFromEnv(env: Record<string, string | undefined>): Sampler {
  const ratio = () => {
    const value = Number(env.OTEL_TRACES_SAMPLER_ARG);
    return env.OTEL_TRACES_SAMPLER_ARG !== undefined && value >= 0 && value <= 1 ? value : 1;
  };
  switch (env.OTEL_TRACES_SAMPLER) {
    case undefined:
    case '':
      return new QuietStatementsSampler();
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio());
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio()) });
    default:
      diag.error(`unknown OTEL_TRACES_SAMPLER value "${env.OTEL_TRACES_SAMPLER}", using the default`);
      return new QuietStatementsSampler();
  }
}
