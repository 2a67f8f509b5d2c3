// CloudEvents 1.0 envelope, structured JSON mode (docs/design.md, "Events").
// Written for any catalog (`…Of(catalog, …)`): Hireflow's own is bound below
// as createEvent/parseEvent; a test's catalog with a v2 fixture uses the same
// code through defineEventContracts (versions.ts).
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { type Catalog, type EventCatalog, type EventType, eventCatalog } from './events.ts';
import { nonSqsTextPath, SQS_TEXT_MESSAGE } from './transport/sqs-text.ts';

export type EventSource = `hireflow/${string}`;

/**
 * The lane of the work an event causes (docs/fairness.md): `bulk` for imports
 * and replays, taken after interactive work in every consumer's queues. A
 * CloudEvents extension attribute; absent means interactive.
 */
export type EventLane = 'interactive' | 'bulk';
export const EVENT_LANES = ['interactive', 'bulk'] as const;

/** A type name of catalog `C`. */
export type TypeOf<C extends Catalog> = keyof C & string;
/** The `data` of an event of type `T` in catalog `C`. */
export type DataOf<C extends Catalog, T extends TypeOf<C>> = z.output<C[T]['data']>;

export interface CloudEventOf<C extends Catalog, T extends TypeOf<C>> {
  specversion: '1.0';
  id: string;
  source: EventSource;
  type: T;
  time: string;
  subject?: string;
  /** Extension attribute: the lane of the work it causes (absent: interactive). */
  lane?: EventLane;
  datacontenttype: 'application/json';
  data: DataOf<C, T>;
}

/** A parsed event of any type of catalog `C`: narrow it with `event.type`. */
export type AnyEventOf<C extends Catalog> = { [T in TypeOf<C>]: CloudEventOf<C, T> }[TypeOf<C>];

export type CloudEvent<T extends EventType = EventType> = CloudEventOf<EventCatalog, T>;

/** A parsed event of any catalog type: narrow it with `event.type`. */
export type AnyEvent = AnyEventOf<EventCatalog>;

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
  lane: z.enum(EVENT_LANES).optional(),
  datacontenttype: z.literal('application/json'),
};

/** The full envelope schema of one event type of a catalog (its `data` schema inside). */
export function envelopeSchemaOf<C extends Catalog, T extends TypeOf<C>>(catalog: C, type: T) {
  return z.object({ ...envelopeFields, type: z.literal(type), data: catalog[type]!.data as C[T]['data'] });
}

/** The full envelope schema of one Hireflow event type (its `data` schema inside). */
export function envelopeSchema<T extends EventType>(type: T) {
  return envelopeSchemaOf(eventCatalog, type);
}

// Built once per catalog and type: parsing is on every message's path.
const envelopes = new WeakMap<Catalog, Map<string, z.ZodType>>();

function envelopeOf(catalog: Catalog, type: string): z.ZodType {
  const byType = envelopes.get(catalog) ?? new Map<string, z.ZodType>();
  envelopes.set(catalog, byType);
  const schema = byType.get(type) ?? envelopeSchemaOf(catalog, type);
  byType.set(type, schema);
  return schema;
}

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
  return parseEventOf(eventCatalog, input);
}

/** parseEvent against catalog `C`. */
export function parseEventOf<C extends Catalog>(catalog: C, input: unknown): AnyEventOf<C> {
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
  if (typeof type !== 'string' || !Object.hasOwn(catalog, type)) {
    const claimed = typeof type === 'string' ? type : undefined;
    const message = claimed === undefined ? 'missing type' : `unknown event type ${JSON.stringify(claimed)}`;
    throw new InvalidEventError([{ path: 'type', message }], claimed);
  }
  const result = envelopeOf(catalog, type).safeParse(value);
  if (!result.success) throw new InvalidEventError(toIssues(result.error), type);
  checkTravels(result.data, type);
  checkProducer(catalog, result.data as AnyEventOf<C>);
  return result.data as AnyEventOf<C>;
}

/**
 * Every string of an event, whatever its schema says, keeps to the
 * characters SQS can carry (sqs-text.ts): one that does not would be
 * stranded on its way, so it is invalid (poison) at once.
 */
function checkTravels(event: unknown, type: string): void {
  const path = nonSqsTextPath(event);
  if (path)
    throw new InvalidEventError([{ path: path.map(String).join('.'), message: SQS_TEXT_MESSAGE }], type);
}

/** Only the catalog's producer of a type may send it: `job.matched.v1` from `hireflow/matching`. */
function checkProducer(catalog: Catalog, event: { type: string; source: string }): void {
  const expected = `hireflow/${catalog[event.type]!.producer}`;
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
  /** `bulk` for work of an import or a replay (absent: interactive). */
  lane?: EventLane;
}

/** Builds a validated event; throws InvalidEventError when `data` does not match the type's schema. */
export function createEvent<T extends EventType>(
  type: T,
  data: DataOf<EventCatalog, T>,
  options: CreateEventOptions,
): CloudEvent<T> {
  return createEventOf(eventCatalog, type, data, options);
}

/** createEvent in catalog `C`. */
export function createEventOf<C extends Catalog, T extends TypeOf<C>>(
  catalog: C,
  type: T,
  data: DataOf<C, T>,
  options: CreateEventOptions,
): CloudEventOf<C, T> {
  if (!Object.hasOwn(catalog, type)) {
    throw new InvalidEventError(
      [{ path: 'type', message: `unknown event type ${JSON.stringify(type)}` }],
      type,
    );
  }
  const time = options.time ?? new Date();
  const candidate = {
    specversion: '1.0',
    id: options.id ?? randomUUID(),
    source: options.source,
    type,
    time: typeof time === 'string' ? time : time.toISOString(),
    ...(options.subject === undefined ? {} : { subject: options.subject }),
    ...(options.lane === undefined ? {} : { lane: options.lane }),
    datacontenttype: 'application/json',
    data,
  };
  const result = envelopeOf(catalog, type).safeParse(candidate);
  if (!result.success) throw new InvalidEventError(toIssues(result.error), type);
  checkTravels(result.data, type);
  checkProducer(catalog, result.data as CloudEventOf<C, T>);
  return result.data as CloudEventOf<C, T>;
}
