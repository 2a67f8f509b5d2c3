import type { Attributes, Context, Link, SpanKind } from '@opentelemetry/api';
import {
  AlwaysOnSampler,
  ParentBasedSampler,
  type Sampler,
  SamplingDecision,
  type SamplingResult,
} from '@opentelemetry/sdk-trace';

/**
 * Statements that only frame a transaction (BEGIN, COMMIT, ROLLBACK,
 * SAVEPOINT, RELEASE, SET LOCAL): a span each said nothing the transaction's own
 * statements do not, and made a fifth of every story's spans.
 */
const FRAMING = /^pg\.query:(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|SET)\b/;

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
    if (FRAMING.test(spanName)) return { decision: SamplingDecision.NOT_RECORD };
    return this.delegate.shouldSample(context, traceId, spanName, spanKind, attributes, links);
  }

  toString(): string {
    return `QuietStatementsSampler{${this.delegate.toString()}}`;
  }
}
