// CloudEvents 1.0 envelope, structured JSON mode (docs/design.md, "Events").
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { type EventData, type EventType, eventCatalog, eventTypes, isEventType } from './events.ts';

export type EventSource = `hireflow/${string}`;

export interface CloudEvent<T extends EventType = EventType> {
  specversion: '1.0';
  id: string;
  source: EventSource;
  type: T;
  time: string;
  subject?: string;
  datacontenttype: 'application/json';
  data: EventData<T>;
}

/** A parsed event of any catalog type: narrow it with `event.type`. */
export type AnyEvent = { [T in EventType]: CloudEvent<T> }[EventType];

export interface EventIssue {
  path: string;
  message: string;
}

/** The input is not a valid event of the catalog (poison: never retried). */
export class InvalidEventError extends Error {
  readonly code = 'INVALID_EVENT';
  readonly issues: EventIssue[];
  /** The `type` the input claimed, when it had one. */
  readonly type: string | undefined;

  constructor(issues: EventIssue[], type?: string) {
    super(
      `invalid event${type ? ` ${type}` : ''}: ${issues.map((i) => `${i.path || '(root)'}: ${i.message}`).join('; ')}`,
    );
    this.name = 'InvalidEventError';
    this.issues = issues;
    this.type = type;
  }
}

const envelopeFields = {
  specversion: z.literal('1.0'),
  id: z.uuid(),
  source: z
    .string()
    .regex(/^hireflow\/[a-z][a-z0-9-]*$/, 'must be hireflow/<service>')
    .max(100) as z.ZodType<EventSource>,
  time: z.iso.datetime({ offset: true }),
  subject: z.string().min(1).max(200).optional(),
  datacontenttype: z.literal('application/json'),
};

/** The full envelope schema of one event type (its `data` schema inside). */
export function envelopeSchema<T extends EventType>(type: T) {
  return z.object({ ...envelopeFields, type: z.literal(type), data: eventCatalog[type].data });
}

const envelopes = new Map<EventType, z.ZodType>(eventTypes.map((t) => [t, envelopeSchema(t)]));

function toIssues(error: z.ZodError, prefix: (string | number)[] = []): EventIssue[] {
  return error.issues.map((issue) => ({
    path: [...prefix, ...issue.path].map(String).join('.'),
    message: issue.message,
  }));
}

/**
 * Validates anything (an object, or a JSON string) as a catalog event.
 * Throws InvalidEventError listing every issue; an unknown `type` is invalid too.
 */
export function parseEvent(input: unknown): AnyEvent {
  let value = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch (error) {
      throw new InvalidEventError([{ path: '', message: `not JSON: ${(error as Error).message}` }]);
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidEventError([{ path: '', message: 'expected a JSON object' }]);
  }
  const type = (value as { type?: unknown }).type;
  if (!isEventType(type)) {
    const claimed = typeof type === 'string' ? type : undefined;
    const message = claimed === undefined ? 'missing type' : `unknown event type ${JSON.stringify(claimed)}`;
    throw new InvalidEventError([{ path: 'type', message }], claimed);
  }
  const result = envelopes.get(type)!.safeParse(value);
  if (!result.success) throw new InvalidEventError(toIssues(result.error), type);
  checkProducer(result.data as AnyEvent);
  return result.data as AnyEvent;
}

/** Only the catalog's producer of a type may send it: `job.matched.v1` from `hireflow/matching`. */
function checkProducer(event: { type: EventType; source: string }): void {
  const expected = `hireflow/${eventCatalog[event.type].producer}`;
  if (event.source !== expected) {
    throw new InvalidEventError(
      [{ path: 'source', message: `must be ${expected}, the producer of ${event.type}` }],
      event.type,
    );
  }
}

export interface CreateEventOptions {
  /** `hireflow/<service>` of the producer. */
  source: EventSource;
  /** The entity the event is about (e.g. the jobId). */
  subject?: string;
  /** Defaults to a new UUID: the event's identity across every redelivery. */
  id?: string;
  /** Defaults to now. */
  time?: Date | string;
}

/** Builds a validated event; throws InvalidEventError when `data` does not match the type's schema. */
export function createEvent<T extends EventType>(
  type: T,
  data: EventData<T>,
  options: CreateEventOptions,
): CloudEvent<T> {
  const time = options.time ?? new Date();
  const candidate = {
    specversion: '1.0',
    id: options.id ?? randomUUID(),
    source: options.source,
    type,
    time: typeof time === 'string' ? time : time.toISOString(),
    ...(options.subject === undefined ? {} : { subject: options.subject }),
    datacontenttype: 'application/json',
    data,
  };
  const result = envelopes.get(type)!.safeParse(candidate);
  if (!result.success) throw new InvalidEventError(toIssues(result.error), type);
  checkProducer(result.data as AnyEvent);
  return result.data as CloudEvent<T>;
}
