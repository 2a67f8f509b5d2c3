// Fairness by tenant inside one SQS queue (docs/fairness.md, "Inside one SQS
// queue"). A queue is first in, first out (nearly, on AWS; exactly, on the
// emulator): a tenant's flood of 500 events sits in front of another
// tenant's five. The consumer cannot see past the head of the queue, so to
// reach the others' events it moves the flood out of the way: what it
// receives of a tenant beyond that tenant's share of its hand is hidden
// (ChangeMessageVisibility) until about when the tenant's turn comes, paced at
// the rate the consumer runs that tenant's events. The flood comes back at the
// pace it is handled, so the queue's head stays short, and another tenant's
// event is received within a few receives and started at the next free slot.
//
// This file is the bookkeeping alone (no SQS): which received message is held
// for a slot, which is hidden and for how long, and which starts next; and
// the same bookkeeping without fairness (FifoIntake), so that the consumer has
// one receive path whichever it runs.

import { UNKNOWN_TENANT } from '../message-group.ts';

export interface SqsFairnessOptions {
  /**
   * Received messages kept in hand, not yet started (default: twice the
   * consumer's concurrency, at least 100). They are what the next free slot
   * chooses from, by tenant; their visibility is kept by the heartbeat as a
   * running one's. A hide lasts whole seconds: the hand is what keeps the
   * slots busy until the first hidden messages come back, so it should hold
   * about a second of work.
   */
  hold?: number;
  /**
   * A message is hidden for fairness at most this many times (default 2):
   * each hide is a receive of the queue's `maxReceiveCount` (12 in the
   * topology), so at least 12 − this (10) remain for workers that die holding
   * it. Once spent, the message is kept in hand and runs in its turn.
   */
  maxHides?: number;
  /**
   * Shortest hide (ms, default 1,000: SQS's visibility is in whole
   * seconds). A message whose turn comes sooner is held, not hidden.
   */
  minHideMs?: number;
  /** Longest hide (ms, default 60,000): a flood longer than this is hidden again when it comes back. */
  maxHideMs?: number;
}

export const DEFAULT_MAX_HIDES = 2;
export const DEFAULT_MIN_HIDE_MS = 1000;
export const DEFAULT_MAX_HIDE_MS = 60_000;
/** The handler time assumed before any has been measured (ms). */
export const DEFAULT_HANDLER_MS = 50;
/** The smallest default hold (see SqsFairnessOptions.hold). */
export const DEFAULT_MIN_HOLD = 100;
/** Three of SQS's largest receives (the consumer makes up to three at once while it looks ahead). */
const LOOKAHEAD = 30;

export type Placement = { hold: true } | { hold: false; hideMs: number };

/**
 * What the consumer's one receive path asks of the messages it received
 * (consumer.ts): how many it may have in hand, whether each is held for a
 * slot or hidden, which held one the next free slot runs, and which are left
 * when it stops. `FairIntake` takes tenants in turn (`INBOX_FAIRNESS=on`);
 * `FifoIntake` runs them in the order received (off).
 */
export interface Intake<T> {
  /** `place` uses the tenant: the consumer parses each body for it only then. */
  readonly byTenant: boolean;
  /** Messages the consumer may have in hand at most (running, held, being hidden). */
  readonly receiveLimit: number;
  /** Up to three receives at once (the look-ahead past a flood), rather than one. */
  readonly lookingAhead: boolean;
  /** Messages hidden so far. */
  readonly hidden: number;
  place(item: T, tenant: string, receiveCount: number, now: number, handlerMs: number): Placement;
  next(): { item: T; tenant: string } | undefined;
  done(tenant: string): void;
  drain(): T[];
}

/**
 * The intake without fairness: every message is held, and started in the
 * order received as slots free. Receives ask only for free slots, so a
 * message is held only until the same turn starts it (or, when the consumer
 * stops meanwhile, given back). Nothing is hidden.
 */
export class FifoIntake<T> implements Intake<T> {
  readonly byTenant = false;
  readonly lookingAhead = false;
  readonly hidden = 0;
  readonly #concurrency: number;
  #held: T[] = [];
  #running = 0;

  constructor(concurrency: number) {
    this.#concurrency = Math.max(1, concurrency);
  }

  get receiveLimit(): number {
    return this.#concurrency;
  }

  place(item: T): Placement {
    this.#held.push(item);
    return { hold: true };
  }

  next(): { item: T; tenant: string } | undefined {
    if (this.#running >= this.#concurrency || this.#held.length === 0) return undefined;
    this.#running += 1;
    return { item: this.#held.shift()!, tenant: UNKNOWN_TENANT };
  }

  done(): void {
    if (this.#running > 0) this.#running -= 1;
  }

  drain(): T[] {
    const items = this.#held;
    this.#held = [];
    return items;
  }
}

interface Tenant<T> {
  running: number;
  held: T[];
  /** When this tenant's last hidden message was paced to come back (ms since epoch). */
  due: number;
  /** The turn it last started a message in (round robin among equals). */
  lastTurn: number;
}

/**
 * Per-tenant accounting of one consumer's hand: running messages and held
 * ones by tenant. `place` decides for each received message, `next` gives the
 * message the next free slot runs (the tenant with the fewest running, then
 * the one that waited longest for a turn; a tenant's own messages in the order
 * received), `done` frees a slot.
 */
export class FairIntake<T> implements Intake<T> {
  readonly byTenant = true;
  readonly #concurrency: number;
  readonly #hold: number;
  readonly #maxHides: number;
  readonly #minHideMs: number;
  readonly #maxHideMs: number;
  readonly #tenants = new Map<string, Tenant<T>>();
  #running = 0;
  #held = 0;
  #turn = 0;
  #hidden = 0;

  constructor(concurrency: number, options: SqsFairnessOptions = {}) {
    this.#concurrency = Math.max(1, concurrency);
    this.#hold = Math.max(1, options.hold ?? Math.max(2 * this.#concurrency, DEFAULT_MIN_HOLD));
    this.#maxHides = Math.max(0, options.maxHides ?? DEFAULT_MAX_HIDES);
    this.#minHideMs = Math.max(0, options.minHideMs ?? DEFAULT_MIN_HIDE_MS);
    this.#maxHideMs = Math.max(this.#minHideMs, options.maxHideMs ?? DEFAULT_MAX_HIDE_MS);
  }

  /**
   * Messages the consumer may have in hand (running, held, being hidden) at
   * most; receives ask for what is left. While the hold is half full, three more
   * receives' worth: the look-ahead, whose messages are a newcomer's (held:
   * it is what the look-ahead is for) or the surplus of a tenant already
   * holding its share (hidden at once, leaving the hand).
   */
  get receiveLimit(): number {
    return this.#concurrency + this.#hold + (this.lookingAhead ? LOOKAHEAD : 0);
  }

  /**
   * The hold is at least half full: the slots have work for a while, so what
   * is received beyond the hand is looked ahead for (a newcomer's, or a
   * flood's to hide). Half, not full: handlers finishing take from the hold as
   * fast as receives fill it, and a hold kept just short of full would never
   * look ahead.
   */
  get lookingAhead(): boolean {
    return this.#held >= Math.ceil(this.#hold / 2);
  }

  get running(): number {
    return this.#running;
  }

  get held(): number {
    return this.#held;
  }

  /** Messages hidden so far (a counter, for tests and logs). */
  get hidden(): number {
    return this.#hidden;
  }

  /** Tenants with a message running or held. */
  get tenants(): number {
    return this.#tenants.size;
  }

  /**
   * Holds a received message for a slot, or says how long to hide it: a
   * tenant's share of the hand (slots and hold) is the hand divided among the
   * tenants in hand; beyond it, a message whose receives leave room for it
   * is hidden until about when the tenant's messages ahead of it have run,
   * at its share of the slots and `handlerMs` each.
   */
  place(item: T, tenant: string, receiveCount: number, now: number, handlerMs: number): Placement {
    this.#prune(now);
    const t = this.#tenant(tenant);
    const tenants = this.#tenants.size;
    const share = Math.max(1, Math.ceil((this.#concurrency + this.#hold) / tenants));
    const inHand = t.running + t.held.length;
    // receiveCount − 1 receives were spent before this one: a hide spends this one.
    if (inHand < share || receiveCount > this.#maxHides) {
      t.held.push(item);
      this.#held += 1;
      return { hold: true };
    }
    const slots = Math.max(1, this.#concurrency / tenants);
    const spacing = Math.max(1, handlerMs) / slots;
    const ahead = now + inHand * spacing;
    // A message back from a hide (or a redelivery) came early: it is among
    // the tenant's first, so it waits for those in hand only. A new one goes
    // after every message of the tenant hidden so far.
    let due: number;
    if (receiveCount > 1) {
      due = ahead + spacing;
    } else {
      t.due = Math.max(ahead, t.due) + spacing;
      due = t.due;
    }
    if (due - now < this.#minHideMs) {
      // Its turn comes before the shortest hide would end: holding it costs
      // less (the receive limit bounds the hand: the consumer stops receiving).
      t.held.push(item);
      this.#held += 1;
      return { hold: true };
    }
    this.#hidden += 1;
    return { hold: false, hideMs: Math.min(this.#maxHideMs, due - now) };
  }

  /** The held message the next free slot runs, moved to running; undefined when none is held or no slot is free. */
  next(): { item: T; tenant: string } | undefined {
    if (this.#running >= this.#concurrency || this.#held === 0) return undefined;
    let best: [string, Tenant<T>] | undefined;
    for (const entry of this.#tenants) {
      const t = entry[1];
      if (t.held.length === 0) continue;
      if (
        !best ||
        t.running < best[1].running ||
        (t.running === best[1].running && t.lastTurn < best[1].lastTurn)
      ) {
        best = entry;
      }
    }
    if (!best) return undefined;
    const [tenant, t] = best;
    const item = t.held.shift()!;
    this.#held -= 1;
    t.running += 1;
    this.#running += 1;
    this.#turn += 1;
    t.lastTurn = this.#turn;
    return { item, tenant };
  }

  /** A running message of `tenant` finished (or was settled): its slot is free. */
  done(tenant: string): void {
    const t = this.#tenants.get(tenant);
    if (!t || t.running === 0) return;
    t.running -= 1;
    this.#running -= 1;
  }

  /** Every held message, taken out (the consumer gives them back to the queue on close). */
  drain(): T[] {
    const items: T[] = [];
    for (const t of this.#tenants.values()) {
      items.push(...t.held);
      this.#held -= t.held.length;
      t.held = [];
    }
    return items;
  }

  #tenant(tenant: string): Tenant<T> {
    let t = this.#tenants.get(tenant);
    if (!t) {
      t = { running: 0, held: [], due: 0, lastTurn: 0 };
      this.#tenants.set(tenant, t);
    }
    return t;
  }

  /**
   * Tenants with nothing in hand are forgotten, unless messages they had
   * hidden are still due back: those keep their pacing (a flood is not hidden
   * again from the start at each return) and their share of the hand.
   */
  #prune(now: number): void {
    for (const [tenant, t] of this.#tenants) {
      if (t.running === 0 && t.held.length === 0 && t.due <= now) this.#tenants.delete(tenant);
    }
  }
}
