// Which schema changes break whom (docs/contracts.md, "What breaks"). A
// schema is read by someone written by someone else, and the direction
// decides: a change that narrows what is accepted breaks whoever still
// writes the old shape, one that widens it breaks whoever still reads with
// the old schema.
import type { SchemaChange } from './schema-diff.ts';

/**
 * Where a schema sits:
 * - `event`: an event version is read both ways. Consumers built with the
 *   previous contracts read what new producers send (so no widening, no
 *   field they read may go), and consumers built with the new contracts read
 *   what old producers sent and still sits in queues, DLQs and the event log
 *   that `pnpm replay` sends again (so no narrowing). Only an added optional
 *   field passes: zod ignores unknown fields, so old consumers ignore it.
 * - `request`: the client writes, the server reads: a narrowing refuses
 *   requests today's clients send.
 * - `response`: the server writes, the client reads: a widening sends what
 *   the typed client does not expect, a removed field or enum value takes
 *   away what clients read or wait for.
 */
export type SchemaRole = 'event' | 'request' | 'response';

/** One difference between a released contract and the current one. */
export interface Finding {
  /** The event type, or the operation (`POST /v1/jobs`). */
  subject: string;
  /** Where inside it (a dotted schema path), empty for the subject itself. */
  path: string;
  kind: string;
  detail: string;
  breaking: boolean;
  why?: string;
}

export interface Verdict {
  breaking: boolean;
  /** Who it breaks, when it does. */
  why?: string;
}

const OLD_READERS = 'consumers built with the released contracts would refuse or misread new messages';
const NEW_READERS =
  'consumers built with these contracts would refuse messages already sent (queues, DLQs, `pnpm replay`)';

export function judge(change: SchemaChange, role: SchemaRole): Verdict {
  if (change.kind === 'field-added-optional') return { breaking: false };
  // No message, request or response that travelled could hold anything it refuses.
  if (change.kind === 'transport-implied') return { breaking: false };
  if (role === 'event') {
    if (change.kind === 'field-removed') return { breaking: true, why: 'consumers read this field' };
    return { breaking: true, why: change.widens ? OLD_READERS : NEW_READERS };
  }
  if (role === 'request') {
    if (change.kind === 'field-removed') return { breaking: true, why: "today's clients send this field" };
    if (change.narrows)
      return { breaking: true, why: "the server would refuse requests today's clients send" };
    return { breaking: false };
  }
  if (change.kind === 'field-removed') return { breaking: true, why: "today's clients read this field" };
  if (change.kind === 'enum-narrowed') {
    return { breaking: true, why: "today's clients branch on or wait for this value" };
  }
  if (change.widens)
    return { breaking: true, why: "today's clients would get values their types do not allow" };
  return { breaking: false };
}
