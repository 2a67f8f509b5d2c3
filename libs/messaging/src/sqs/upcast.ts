// How the SQS consumer reads a message body into the event its handlers see
// (docs/contracts.md, "Upcasting"): validated against the consumer's
// catalog, and, when no handler takes the message's type but one takes a
// later version of it, upcast along the catalog's deprecations. A consumer
// that moved to job.posted.v2 thus declares only a v2 handler, and the v1
// messages still in its queue reach that handler as v2.
import { type AnyEvent, type EventContractsView, hireflowEvents } from '@hireflow/contracts';
import type { SqsConsumerOptions } from './types.ts';

/** Throws InvalidEventError for a body that is not a valid event, or that a broken upcaster spoils. */
export type EventDecoder = (body: string) => AnyEvent;

export function eventDecoder(options: Pick<SqsConsumerOptions, 'contracts' | 'handlers'>): EventDecoder {
  const contracts: EventContractsView = options.contracts ?? hireflowEvents;
  const handles = (type: string) => typeof (options.handlers as Record<string, unknown>)[type] === 'function';
  return (body) => {
    const event = contracts.parse(body);
    // The handlers are typed by Hireflow's catalog; a test's catalog with a
    // v2 fixture reaches them through the same keys.
    return (handles(event.type) ? event : (contracts.upcast(event, handles) ?? event)) as AnyEvent;
  };
}
