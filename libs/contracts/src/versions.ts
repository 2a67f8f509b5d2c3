// Event versions (docs/contracts.md): a breaking change to `job.posted.v1` is
// a new type, `job.posted.v2`, published beside v1 until v1's sunset. The
// deprecation of v1 names its successor and the two functions that bridge
// them: `downcast` lets a producer that speaks v2 also write v1 (in the same
// outbox transaction, see enqueueVersions), `upcast` lets a consumer that
// handles only v2 take the v1 messages still in its queue.
import { createHash } from 'node:crypto';
import {
  type AnyEventOf,
  type CloudEventOf,
  type CreateEventOptions,
  createEventOf,
  type DataOf,
  InvalidEventError,
  parseEventOf,
  type TypeOf,
} from './envelope.ts';
import { type Catalog, type EventCatalog, eventCatalog, type TopicName } from './events.ts';

/** v1 → v2 of one type family, declared on the older version. */
export interface DeprecationOf<C extends Catalog, From extends TypeOf<C>, To extends TypeOf<C>> {
  /** The version that replaces this one: same family, higher version, same topic and producer. */
  replacedBy: To;
  /** `YYYY-MM-DD`: the last day this version is published; it may leave the catalog after it. */
  sunset: string;
  /** This version's data from the successor's: the producer publishes both until the sunset. */
  downcast: (data: DataOf<C, To>) => DataOf<C, From>;
  /** The successor's data from this version's: consumers of the successor only take this version's backlog. */
  upcast: (data: DataOf<C, From>) => DataOf<C, To>;
}

/** Deprecations of catalog `C`, keyed by the older type; each one typed by its `replacedBy`. */
export type Deprecations<C extends Catalog> = {
  [From in TypeOf<C>]?: { [To in TypeOf<C>]: DeprecationOf<C, From, To> }[TypeOf<C>];
};

/** What a deprecation looks like to code that does not know the types. */
interface AnyDeprecation {
  replacedBy: string;
  sunset: string;
  downcast: (data: unknown) => unknown;
  upcast: (data: unknown) => unknown;
}

/**
 * Any catalog with its deprecations, its types erased: what code that serves
 * every catalog reads (the published schemas, the AsyncAPI document, the SQS
 * consumer's decoding). `keyof` makes the typed EventContracts<C> invariant
 * in C, so such code takes this view instead.
 */
export interface EventContractsView {
  readonly catalog: Catalog;
  readonly types: readonly string[];
  /** The deprecation of a type (its successor and sunset), if it has one. */
  deprecation(type: string): { replacedBy: string; sunset: string } | undefined;
  isType(value: unknown): boolean;
  topicOf(type: string): TopicName;
  parse(input: unknown): AnyEventOf<Catalog>;
  /**
   * The event and a copy in each older version still published beside it
   * (its deprecations' `downcast`, transitively): what the outbox writes.
   * A copy's id derives from the event's, so a re-announcement of the same
   * event derives the same ids. After its sunset (`now`'s UTC day past it)
   * a version gets no more copies.
   */
  versionsOf(event: AnyEventOf<Catalog>, now?: Date): AnyEventOf<Catalog>[];
  /**
   * The event as the first type along its upcast chain that `accepts`, or
   * undefined when none does (the event as it came is handled, if at all).
   * The result is validated: an upcaster that builds an invalid event throws
   * InvalidEventError (poison, like any invalid message).
   */
  upcast(event: AnyEventOf<Catalog>, accepts: (type: string) => boolean): AnyEventOf<Catalog> | undefined;
}

/** A catalog with its deprecations, typed: what producers and consumers of that catalog hold. */
export interface EventContracts<C extends Catalog = Catalog> extends EventContractsView {
  readonly catalog: C;
  readonly types: TypeOf<C>[];
  isType(value: unknown): value is TypeOf<C>;
  topicOf(type: TypeOf<C>): TopicName;
  parse(input: unknown): AnyEventOf<C>;
  create<T extends TypeOf<C>>(type: T, data: DataOf<C, T>, options: CreateEventOptions): CloudEventOf<C, T>;
  versionsOf(event: AnyEventOf<C>, now?: Date): AnyEventOf<C>[];
  upcast(event: AnyEventOf<C>, accepts: (type: string) => boolean): AnyEventOf<C> | undefined;
}

const TYPE_NAME = /^([a-z][a-z0-9]*(?:\.[a-z][a-z0-9]*)+)\.v([1-9][0-9]*)$/;

/** `job.posted.v2` → `{ family: 'job.posted', version: 2 }`; undefined for a name outside the convention. */
export function parseTypeName(type: string): { family: string; version: number } | undefined {
  const match = TYPE_NAME.exec(type);
  return match ? { family: match[1]!, version: Number(match[2]) } : undefined;
}

/** A deterministic UUID (version 5 layout) naming the `type` copy of event `id`. */
export function derivedEventId(id: string, type: string): string {
  const hash = createHash('sha1').update(`${id}\n${type}`).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Refuses a deprecation that cannot work: unknown successor, another family, topic or producer, a bad date. */
function checkDeprecations(catalog: Catalog, deprecations: Record<string, AnyDeprecation>): void {
  for (const [from, deprecation] of Object.entries(deprecations)) {
    const to = deprecation.replacedBy;
    const problem = (why: string) => new Error(`deprecation of ${from}: ${why}`);
    const old = parseTypeName(from);
    const next = parseTypeName(to);
    if (!catalog[from] || !catalog[to]) throw problem(`${catalog[from] ? to : from} is not in the catalog`);
    if (!old || !next || old.family !== next.family || next.version <= old.version) {
      throw problem(`${to} is not a later version of the same event`);
    }
    if (catalog[from].topic !== catalog[to].topic || catalog[from].producer !== catalog[to].producer) {
      throw problem(`${to} must travel on the same topic from the same producer`);
    }
    if (!/^\d{4}-\d{2}-\d{2}$/.test(deprecation.sunset) || Number.isNaN(Date.parse(deprecation.sunset))) {
      throw problem(`sunset ${JSON.stringify(deprecation.sunset)} is not a YYYY-MM-DD date`);
    }
  }
}

export function defineEventContracts<C extends Catalog>(
  catalog: C,
  deprecations: Deprecations<C> = {},
): EventContracts<C> {
  const byFrom = deprecations as Record<string, AnyDeprecation>;
  checkDeprecations(catalog, byFrom);
  const isType = (value: unknown): value is TypeOf<C> =>
    typeof value === 'string' && Object.hasOwn(catalog, value);
  const parse = (input: unknown) => parseEventOf(catalog, input);
  const withType = (event: AnyEventOf<C>, type: string, data: unknown, id = event.id): AnyEventOf<C> =>
    parse({ ...event, id, type, data });

  const versionsOf = (event: AnyEventOf<C>, now = new Date()): AnyEventOf<C>[] => {
    const today = now.toISOString().slice(0, 10);
    const older = Object.entries(byFrom).filter(([, d]) => d.replacedBy === event.type && d.sunset >= today);
    return [
      event,
      ...older.flatMap(([from, d]) =>
        versionsOf(withType(event, from, d.downcast(event.data), derivedEventId(event.id, from)), now),
      ),
    ];
  };

  const upcast = (event: AnyEventOf<C>, accepts: (type: string) => boolean): AnyEventOf<C> | undefined => {
    let current = event;
    for (let d = byFrom[current.type]; d; d = byFrom[current.type]) {
      try {
        current = withType(current, d.replacedBy, d.upcast(current.data));
      } catch (error) {
        // A throwing or wrong upcaster makes the message unusable here, like
        // invalid input: poison with the reason, never a retry loop.
        const issues =
          error instanceof InvalidEventError
            ? error.issues
            : [{ path: '', message: (error as Error).message }];
        const why = `after upcasting ${event.type} to ${d.replacedBy}`;
        throw new InvalidEventError(
          issues.map((i) => ({ ...i, message: `${i.message} (${why})` })),
          event.type,
        );
      }
      if (accepts(current.type)) return current;
    }
    return undefined;
  };

  return {
    catalog,
    types: Object.keys(catalog) as TypeOf<C>[],
    deprecation: (type) => {
      const found = Object.hasOwn(byFrom, type) ? byFrom[type] : undefined;
      return found && { replacedBy: found.replacedBy, sunset: found.sunset };
    },
    isType,
    topicOf: (type) => catalog[type]!.topic,
    parse,
    create: (type, data, options) => createEventOf(catalog, type, data, options),
    versionsOf,
    upcast,
  };
}

/** Deprecations of Hireflow's catalog: none yet (docs/contracts.md says how to add one). */
export const eventDeprecations: Deprecations<EventCatalog> = {};

/** Hireflow's catalog with its deprecations: the default of every producer and consumer. */
export const hireflowEvents: EventContracts<EventCatalog> = defineEventContracts(
  eventCatalog,
  eventDeprecations,
);
