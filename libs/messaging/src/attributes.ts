// Message attributes of our own (docs/design.md: at most 7, since SQS keeps 10
// and the trace context takes 3): names in one place.
import type { TraceCarrier } from './trace.ts';
import { TRACE_FIELDS } from './trace.ts';

export const ATTR_TYPE = 'type';
export const ATTR_DEFERRED_COUNT = 'deferred-count';
/**
 * Milliseconds a message has spent deferred so far: the sum of the delays it
 * was given, not the time since its first deferral (a message deferred once
 * and then queued an hour in a backlog has waited seconds for its dependency).
 */
export const ATTR_DEFERRED_MS = 'deferred-ms';
/** Written by earlier versions (the time of the first deferral); ignored, stripped on redrive. */
export const ATTR_FIRST_SEEN = 'first-seen-at';
/** Handler failures counted by consumers across re-sends (see SqsConsumer). */
export const ATTR_FAILED_COUNT = 'failed-count';
export const ATTR_DEAD_LETTER_REASON = 'dead-letter-reason';
/** `bulk` on work of an import or a replay (docs/fairness.md); absent means interactive. */
export const ATTR_LANE = 'lane';
export const MAX_OWN_ATTRIBUTES = 7;

export interface StringAttribute {
  DataType: 'String' | 'Number';
  StringValue: string;
}

/** `type`, the lane when bulk, plus the trace context, as SNS/SQS string attributes (empty values are not allowed there). */
export function eventAttributes(
  type: string,
  trace: TraceCarrier,
  lane?: 'interactive' | 'bulk',
): Record<string, StringAttribute> {
  const attributes: Record<string, StringAttribute> = {
    [ATTR_TYPE]: { DataType: 'String', StringValue: type },
  };
  if (lane === 'bulk') attributes[ATTR_LANE] = { DataType: 'String', StringValue: lane };
  for (const field of TRACE_FIELDS) {
    const value = trace[field];
    if (value) attributes[field] = { DataType: 'String', StringValue: value };
  }
  return attributes;
}

export function assertAttributeBudget(attributes: Record<string, unknown>): void {
  const own = Object.keys(attributes).filter((k) => !(TRACE_FIELDS as readonly string[]).includes(k)).length;
  if (own > MAX_OWN_ATTRIBUTES) {
    throw new Error(`${own} message attributes of our own; at most ${MAX_OWN_ATTRIBUTES} (SQS keeps 10)`);
  }
}
