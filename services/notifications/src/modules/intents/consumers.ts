import { createHash, randomUUID } from 'node:crypto';
import type { CloudEvent } from '@hireflow/contracts';
import type { Database, Sql } from '@hireflow/db';
import { HANDLER_LEASE_MS, IdempotentBatcher, idempotencyKey } from '@hireflow/idempotency';
import {
  backoffBound,
  DeferError,
  type EventHandlers,
  type Logger,
  laneOf,
  type MessageContext,
  PermanentError,
  type RandomSource,
} from '@hireflow/messaging';
import { signals } from '@hireflow/telemetry';
import {
  findCandidate,
  findPosting,
  isConfirmedContact,
  upsertCandidateLockingAddress,
  upsertPosting,
} from '../projections/store.ts';
import { type AdmissionPolicy, recordAndAdmit } from './admission.ts';
import type { EmailQueue, EmailRequest } from './email-queue.ts';
import { intentKeepUntil } from './retention.ts';
import { type EmailIntent, intentStatus, recordIntent, setIntentStatus } from './store.ts';

export interface NotificationHandlersOptions {
  orm: Database;
  emails: EmailQueue;
  /** How long an event waits for a candidate or posting it has not seen (ms): base, doubling up to cap. */
  wait: { baseMs: number; capMs: number };
  /** How long the producers keep their events for a replay: no intent is forgotten sooner. */
  replayHorizonMs: number;
  /** Abuse controls: suppression, the welcome cap, tenants' daily quotas, addresses' daily caps. */
  admission: AdmissionPolicy;
  /** Summaries go only to the tenant's own or a confirmed contact address (default true). */
  confirmContacts?: boolean;
  log: Logger;
  random?: RandomSource;
}

/**
 * The notifications service's event handlers. Each runs once per event id
 * through the idempotency wrapper, in one transaction with its writes
 * (projection, notification log row); the emails it decided on are then
 * enqueued, also when a redelivery finds the event already handled, since the
 * process may have died between the commit and the enqueue. Enqueueing a key
 * twice is a no-op, and the email task sends a key at most once.
 *
 * A `match.found.v1` or `job.matched.v1` that names a candidate or posting not
 * known yet waits for it: the message is re-sent to the inbox with a growing
 * delay (DeferError), which burns no SQS receive, until DEPENDENCY_WAIT_MAX_MS,
 * after which the consumer dead-letters it with the reason.
 */
export function notificationHandlers(options: NotificationHandlersOptions): EventHandlers {
  const { orm, emails } = options;
  const random = options.random ?? Math.random;

  const waitFor = (context: MessageContext, what: string): DeferError =>
    new DeferError(dependencyWaitMs(context.deferredCount, options.wait, random), `waiting for ${what}`);

  // The messages of one receive batch share one transaction (claims, effects, completions, one commit).
  const batcher = new IdempotentBatcher(orm, { leaseMs: HANDLER_LEASE_MS });

  /** What a handler decided: the emails to queue, and the refusals to report once committed. */
  interface Decided {
    requests: EmailRequest[];
    refused: { outcome: 'suppressed' | 'held' | 'capped'; template: EmailIntent['template'] }[];
  }

  const handle = async (
    event: Pick<CloudEvent, 'id' | 'lane'>,
    context: MessageContext,
    work: (em: Sql, refused: Decided['refused']) => Promise<EmailRequest[]>,
  ): Promise<void> => {
    const decided = await once(batcher, event.id, async (em) => {
      const refused: Decided['refused'] = [];
      return { requests: await work(em, refused), refused };
    });
    // A duplicate gets the stored decision: its refusals were reported by the delivery that made it.
    if (decided.fresh) for (const refusal of decided.refused) signals.email.publish(refusal);
    // An import's or a replay's emails wait behind interactive ones (docs/fairness.md).
    const lane = laneOf(event, context);
    await emails.enqueue(decided.requests.map((request) => ({ ...request, lane })));
  };

  const intend = async (
    em: Sql,
    refused: Decided['refused'],
    intent: Omit<EmailIntent, 'keepUntil'>,
    postedAt?: Date,
    /** An earlier statement of this transaction took the recipient's lock (a welcome email's). */
    addressLocked = false,
  ): Promise<EmailRequest[]> => {
    const keepUntil = intentKeepUntil(intent.template, {
      recordedAt: new Date(),
      postedAt,
      replayHorizonMs: options.replayHorizonMs,
    });
    const request = [{ key: intent.key, template: intent.template, tenantId: intent.tenantId }];
    const admitted = await recordAndAdmit(em, { ...intent, keepUntil }, options.admission, options.log, {
      addressLocked,
    });
    if (admitted.recorded) {
      const { refusal } = admitted;
      if (!refusal) return request; // recorded `queued` by this transaction and admitted
      await setIntentStatus(em, intent.key, refusal.status, refusal.reason);
      refused.push({ outcome: refusal.outcome ?? refusal.status, template: intent.template });
      return [];
    }
    // Recorded before: only a queued intent gets its task (again, after a crash before the enqueue).
    const status = await intentStatus(em, intent.key);
    return status === 'queued' ? request : [];
  };

  const awaitConfirmation = async (
    em: Sql,
    refused: Decided['refused'],
    summary: Omit<EmailIntent<'job-matched'>, 'keepUntil'>,
    postedAt: Date,
  ): Promise<EmailRequest[]> => {
    const keepUntil = intentKeepUntil('job-matched', {
      recordedAt: new Date(),
      postedAt,
      replayHorizonMs: options.replayHorizonMs,
    });
    if (await recordIntent(em, { ...summary, keepUntil })) {
      await setIntentStatus(em, summary.key, 'unconfirmed', 'waiting for the contact address to confirm');
    }
    // The key names the tenant and a digest of the address, never the address.
    const digest = createHash('sha256').update(summary.recipient.toLowerCase()).digest('hex');
    return intend(em, refused, {
      key: idempotencyKey('contact-confirmation', summary.tenantId, digest),
      tenantId: summary.tenantId,
      eventId: summary.eventId,
      recipient: summary.recipient,
      template: 'contact-confirmation',
      params: { title: summary.params.title },
    });
  };

  return {
    'job.posted.v1': (event, context) =>
      handle(event, context, async (em) => {
        const { jobId: postingId, tenantId, title, contactEmail, postedAt } = event.data;
        const contactVerified = event.data.contactVerified === true;
        await upsertPosting(em, { postingId, tenantId, title, contactEmail, contactVerified, postedAt });
        return [];
      }),

    'candidate.registered.v1': (event, context) =>
      handle(event, context, async (em, refused) => {
        const { candidateId, tenantId, name, email } = event.data;
        // Two statements: the upsert with the address's lock, then the intent with its admission.
        await upsertCandidateLockingAddress(em, event.data);
        return intend(
          em,
          refused,
          {
            key: idempotencyKey('welcome-email', candidateId),
            tenantId,
            eventId: event.id,
            recipient: email,
            template: 'welcome',
            params: { name },
          },
          undefined,
          true,
        );
      }),

    'match.found.v1': (event, context) =>
      handle(event, context, async (em, refused) => {
        const { jobId: postingId, candidateId, tenantId, score } = event.data;
        const [candidate, posting] = await Promise.all([
          findCandidate(em, candidateId),
          findPosting(em, postingId),
        ]);
        const missing = [!candidate && `candidate ${candidateId}`, !posting && `posting ${postingId}`].filter(
          Boolean,
        );
        if (!candidate || !posting) throw waitFor(context, missing.join(' and '));
        if (candidate.tenantId !== tenantId || posting.tenantId !== tenantId) {
          throw new PermanentError(
            `match ${event.data.matchId} names a candidate or posting of another tenant`,
          );
        }
        return intend(em, refused, {
          key: idempotencyKey('match-email', postingId, candidateId),
          tenantId,
          eventId: event.id,
          recipient: candidate.email,
          template: 'match',
          params: { name: candidate.name, title: posting.title, score },
        });
      }),

    'job.matched.v1': (event, context) =>
      handle(event, context, async (em, refused) => {
        const { jobId: postingId, tenantId, matchCount, computedAt } = event.data;
        const posting = await findPosting(em, postingId);
        if (!posting) throw waitFor(context, `posting ${postingId}`);
        if (posting.tenantId !== tenantId) {
          throw new PermanentError(`job.matched.v1 ${event.id} names a posting of another tenant`);
        }
        const summary = {
          key: idempotencyKey('job-matched', postingId),
          tenantId,
          eventId: event.id,
          recipient: posting.contactEmail,
          template: 'job-matched' as const,
          params: { title: posting.title, matchCount, computedAt },
        };
        const confirmed =
          options.confirmContacts === false ||
          posting.contactVerified ||
          (await isConfirmedContact(em, tenantId, posting.contactEmail));
        if (confirmed) {
          // One summary per posting, about its first computation: later ones hit the same key
          // (and one that overtook the first gives way to it while unsent: recordIntent).
          return intend(em, refused, summary, posting.postedAt);
        }
        // An address the tenant has not confirmed: the summary waits for it,
        // and the address gets one confirmation email per tenant.
        return awaitConfirmation(em, refused, summary, posting.postedAt);
      }),

    // One email to the tenant's contact per disabling (an endpoint enabled and disabled again is told again).
    'webhook.endpoint.disabled.v1': (event, context) =>
      handle(event, context, async (em, refused) => {
        const { endpointId, tenantId, contactEmail, host, reason, disabledAt } = event.data;
        return intend(em, refused, {
          key: idempotencyKey('webhook-disabled', endpointId, disabledAt),
          tenantId,
          eventId: event.id,
          recipient: contactEmail,
          template: 'webhook-disabled',
          params: { endpointId, host, reason, disabledAt },
        });
      }),
  };
}

/**
 * How long an event waits for a candidate or posting it has not seen, its
 * `deferredCount`-th time: half fixed, half jitter (duplicates spread out,
 * and no draw comes back at once) under a bound that doubles from `baseMs`
 * up to `capMs`. Most waits are a lost race with an event in flight beside
 * it (docs/notifications.md), so the first is short: with the default 1 s
 * base, SQS's whole-second delays make every first wait 1 s (no jitter) and
 * the second 1 or 2 s; two copies of one event that come back together are
 * told apart by idempotency ("in progress": the retry-later rule).
 */
export function dependencyWaitMs(
  deferredCount: number,
  wait: NotificationHandlersOptions['wait'],
  random: RandomSource = Math.random,
): number {
  const bound = backoffBound(deferredCount, { base: wait.baseMs, cap: wait.capMs });
  return Math.round(bound / 2 + random() * (bound / 2));
}

/**
 * The work once per event id, in one transaction with the claim (shared with
 * the other messages of its receive batch). A duplicate delivered while the
 * first runs gets idempotency's "in progress", which the consumer's
 * retry-later rule turns into a short wait. `fresh`: this call ran the work
 * (not a stored result of an earlier delivery).
 */
async function once<T extends object>(
  batcher: IdempotentBatcher,
  eventId: string,
  work: (em: Sql) => Promise<T>,
): Promise<T & { fresh: boolean }> {
  // Each run of the work marks its result: the stored one is this call's own
  // when it carries the mark of this call's last run (a batch rolled back and
  // retried alone runs the work twice; a duplicate gets another's result).
  let lastRun = '';
  const result = await batcher.run(eventId, async (em) => {
    lastRun = randomUUID();
    return { ...(await work(em)), run: lastRun };
  });
  const { run, ...rest } = result;
  return { ...(rest as unknown as T), fresh: run === lastRun };
}
