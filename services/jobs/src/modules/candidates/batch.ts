// POST /v1/candidates:batch: a tenant's import is one request, not 20,000.
// Each item is checked on its own, so one bad item is reported in its place
// while the others go ahead; each registration is its own transaction (the
// candidate and its candidate.registered.v1), in the bulk lane: what it causes
// downstream (matching, the welcome email) waits behind interactive work
// (docs/fairness.md).
import { randomUUID } from 'node:crypto';
import type { CloudEvent } from '@hireflow/contracts';
import type { Database, Sql } from '@hireflow/db';
import { IdempotencyConflictError, idempotencyKey, idempotent } from '@hireflow/idempotency';
import { enqueueEvents } from '@hireflow/messaging';
import { insertCandidateOf, type NewCandidate } from './service.ts';

export const MAX_BATCH_ITEMS = 1000;
/** Registrations of one batch running at once: enough to overlap round trips, few enough to share the pool. */
const BATCH_CONCURRENCY = 4;
/** Keyless items registered in one transaction. */
const CHUNK = 50;

export interface FieldError {
  field: string;
  message: string;
}

export type BatchItemResult =
  | { id: string; status: 'registered' | 'existing' }
  | { id: null; status: 'invalid' | 'conflict'; errors: FieldError[] };

/** What the schema said of an invalid item (zod's issues, as far as they are read here). */
export interface ItemIssue {
  code: string;
  path?: readonly PropertyKey[] | undefined;
  message?: string | undefined;
  keys?: readonly string[] | undefined;
  input?: unknown;
}

/** An item as parsed: its fields, or the issues that made it invalid. */
export type ParsedItem =
  | { ok: true; item: NewCandidate & { key?: string | undefined } }
  | { ok: false; issues: readonly ItemIssue[] };

/** `items[3].skills[1]`: the field a client can recognise, in the problem format's style. */
export function fieldOf(index: number, path: readonly PropertyKey[], missingKey?: string): string {
  const parts = [...path.map(String), ...(missingKey ? [missingKey] : [])];
  return parts.reduce(
    (acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : `${acc}.${part}`),
    `items[${index}]`,
  );
}

export function itemErrors(index: number, issues: readonly ItemIssue[]): FieldError[] {
  return issues.flatMap((issue) => {
    const path = issue.path ?? [];
    if (issue.code === 'unrecognized_keys' && issue.keys) {
      return issue.keys.map((key) => ({ field: fieldOf(index, path, key), message: 'is not a known field' }));
    }
    const missing = issue.code === 'invalid_type' && issue.input === undefined;
    return [
      { field: fieldOf(index, path), message: missing ? 'is required' : (issue.message ?? 'is invalid') },
    ];
  });
}

/**
 * Registers one candidate of a batch in `tx`: as POST /v1/candidates does,
 * its event in the bulk lane, which is returned for the caller to write to
 * the outbox in `tx` (a chunk writes its events together).
 */
async function registerOne(tx: Sql, tenantId: string, input: NewCandidate) {
  const { id, created, event } = await insertCandidateOf(tx, tenantId, input, { lane: 'bulk' });
  return { result: { id, status: created ? ('registered' as const) : ('existing' as const) }, event };
}

/** A keyed item: once per key; another item under a used key is a conflict, in its place. */
async function registerKeyed(
  orm: Database,
  tenantId: string,
  index: number,
  key: string,
  input: NewCandidate,
): Promise<BatchItemResult> {
  try {
    return await idempotent(
      orm,
      { key: idempotencyKey('candidate-batch-item', tenantId, key), payload: input, transactional: true },
      async (tx) => {
        const { result, event } = await registerOne(tx, tenantId, input);
        if (event) await enqueueEvents(tx, [event]);
        return result;
      },
    );
  } catch (error) {
    if (!(error instanceof IdempotencyConflictError)) throw error;
    return {
      id: null,
      status: 'conflict',
      errors: [{ field: `items[${index}].key`, message: 'was already used with another item' }],
    };
  }
}

/**
 * Registers the valid items of a batch, one result per item in order. An
 * item with a `key` runs once per key (the tenant's): sent again, it answers
 * what it answered the first time; the same key with another item is a
 * conflict, reported in its place. Without a key an item is still safe to
 * send again: a candidate is unique by email, and an existing one answers
 * `existing` and emits nothing.
 */
export async function registerBatch(
  orm: Database,
  tenantId: string,
  items: readonly ParsedItem[],
): Promise<{ batchId: string; items: BatchItemResult[] }> {
  const batchId = randomUUID();
  const results = new Array<BatchItemResult>(items.length);
  // Units of work: keyless items CHUNK at a time in one transaction (one
  // round trip per candidate, their events in one INSERT), a keyed item alone
  // (its key claimed in its own transaction).
  const units: (() => Promise<void>)[] = [];
  let chunk: { index: number; input: NewCandidate }[] = [];
  const flushChunk = () => {
    const mine = chunk;
    chunk = [];
    units.push(() =>
      orm.em.fork().transactional(async (tx) => {
        const events: CloudEvent<'candidate.registered.v1'>[] = [];
        for (const { index, input } of mine) {
          const { result, event } = await registerOne(tx, tenantId, input);
          results[index] = result;
          if (event) events.push(event);
        }
        await enqueueEvents(tx, events);
      }),
    );
  };
  items.forEach((parsed, index) => {
    if (!parsed.ok) {
      results[index] = { id: null, status: 'invalid', errors: itemErrors(index, parsed.issues) };
      return;
    }
    const { key, ...input } = parsed.item;
    if (key === undefined) {
      chunk.push({ index, input });
      if (chunk.length === CHUNK) flushChunk();
      return;
    }
    units.push(async () => {
      results[index] = await registerKeyed(orm, tenantId, index, key, input);
    });
  });
  if (chunk.length > 0) flushChunk();
  let next = 0;
  let failure: { error: unknown } | undefined;
  const run = async () => {
    while (next < units.length && !failure) {
      try {
        await units[next++]!();
      } catch (error) {
        // A database that fails stops the batch: the client sends it again, and what
        // was registered answers `existing` (or its key's first answer) the second time.
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(BATCH_CONCURRENCY, units.length) }, run));
  if (failure) throw failure.error;
  return { batchId, items: results };
}
