// The seeded workload: every operation a run sends, drawn before it starts,
// so the same seed sends the same requests and events in the same order.
import type { Random } from './random.ts';

export type PlannedOp =
  | { kind: 'candidate'; group: number; n: number; key: string }
  | { kind: 'posting'; group: number; n: number; key: string }
  | { kind: 'close'; posting: number; key: string }
  | { kind: 'upload'; n: number; key: string; owner: number | undefined }
  /** The same HTTP request again: `sameKey` replays it, else the same intent under a new key. */
  | { kind: 'replay'; of: number; sameKey: boolean; key: string }
  /** An earlier candidate's `candidate.registered.v1` sent straight into SNS: one event id `copies` times, then once under a new id. */
  | { kind: 'sns-duplicate'; candidate: number; eventId: string; newEventId: string; copies: number }
  /** A candidate registered, then at once a `match.found.v1` for it, most likely before its own event. */
  | { kind: 'out-of-order'; group: number; n: number; key: string; posting: number; matchId: string }
  /** A posting whose description holds what SQS cannot carry (U+FFFF, a lone surrogate): the API must refuse it. */
  | { kind: 'bad-text'; n: number; key: string; text: string }
  | {
      kind: 'poison';
      topic: 'jobs-events' | 'matching-events';
      type: 'candidate.registered.v1' | 'match.found.v1';
      eventId: string;
      /** A well-formed event but for text SQS cannot carry (sent escaped), rather than a broken schema. */
      badText?: string;
    };

export interface Plan {
  ops: PlannedOp[];
  /** Words of each group: a candidate matches the postings of its own group, nothing else. */
  vocabulary: string[][];
}

const WEIGHTS = {
  candidate: 34,
  posting: 18,
  close: 4,
  upload: 8,
  replay: 8,
  'sns-duplicate': 10,
  'out-of-order': 6,
  poison: 2,
  'bad-text': 2,
};

/** Text SQS cannot carry: a noncharacter, a lone high and a lone low surrogate. */
const BAD_TEXT = ['\uffff', '\ud800', '\udfff', '\ufffe'];

function word(random: Random): string {
  const letters = 'bcdfghjklmnpqrstvwxz';
  const vowels = 'aeiouy';
  let w = '';
  for (let i = 0; i < 4; i++) w += random.pick([...letters]) + random.pick([...vowels]);
  return w;
}

/** Draws `events` operations. Groups are small, so matches grow with the events, not with their square. */
export function drawPlan(random: Random, events: number): Plan {
  const groups = Math.max(8, Math.round(events / 10));
  const vocabulary = Array.from({ length: groups }, () => Array.from({ length: 6 }, () => word(random)));
  const ops: PlannedOp[] = [];
  const postings: number[] = [];
  const candidates: number[] = [];
  const httpOps: number[] = [];
  const closed = new Set<number>();
  for (let i = 0; i < events; i++) {
    let kind = random.weighted(WEIGHTS);
    if ((kind === 'close' || kind === 'out-of-order') && postings.length - closed.size < 2) kind = 'posting';
    if (
      (kind === 'replay' && httpOps.length === 0) ||
      (kind === 'sns-duplicate' && candidates.length === 0)
    ) {
      kind = 'candidate';
    }
    const index = ops.length;
    switch (kind) {
      case 'candidate':
        ops.push({ kind, group: random.int(0, groups - 1), n: index, key: random.uuid() });
        candidates.push(index);
        httpOps.push(index);
        break;
      case 'posting':
        ops.push({ kind, group: random.int(0, groups - 1), n: index, key: random.uuid() });
        postings.push(index);
        httpOps.push(index);
        break;
      case 'close': {
        const open = postings.filter((p) => !closed.has(p));
        const posting = random.pick(open);
        closed.add(posting);
        ops.push({ kind, posting, key: random.uuid() });
        break;
      }
      case 'upload':
        ops.push({
          kind,
          n: index,
          key: random.uuid(),
          owner: random.chance(0.5) && postings.length > 0 ? random.pick(postings) : undefined,
        });
        httpOps.push(index);
        break;
      case 'replay': {
        const of = random.pick(httpOps);
        // A new key is a new intent for a posting or an upload; for a candidate, the email is the intent.
        const sameKey = random.chance(0.6) || ops[of]!.kind !== 'candidate';
        ops.push({ kind, of, sameKey, key: random.uuid() });
        break;
      }
      case 'sns-duplicate':
        ops.push({
          kind,
          candidate: random.pick(candidates),
          eventId: random.uuid(),
          newEventId: random.uuid(),
          copies: random.int(2, 3),
        });
        break;
      case 'out-of-order': {
        const open = postings.filter((p) => !closed.has(p));
        ops.push({
          kind,
          group: random.int(0, groups - 1),
          n: index,
          key: random.uuid(),
          posting: random.pick(open),
          matchId: random.uuid(),
        });
        candidates.push(index);
        break;
      }
      case 'poison': {
        const onJobs = random.chance(0.5);
        ops.push({
          kind,
          topic: onJobs ? 'jobs-events' : 'matching-events',
          type: onJobs ? 'candidate.registered.v1' : 'match.found.v1',
          eventId: random.uuid(),
          ...(random.chance(0.5) ? { badText: random.pick(BAD_TEXT) } : {}),
        });
        break;
      }
      case 'bad-text':
        ops.push({ kind, n: index, key: random.uuid(), text: random.pick(BAD_TEXT) });
        break;
    }
  }
  // A posting that an out-of-order match names must stay open: a closed posting takes no match.
  const named = new Set(ops.flatMap((op) => (op.kind === 'out-of-order' ? [op.posting] : [])));
  const kept = ops.map((op) => (op.kind === 'close' && named.has(op.posting) ? { ...op, posting: -1 } : op));
  return { ops: kept, vocabulary };
}
