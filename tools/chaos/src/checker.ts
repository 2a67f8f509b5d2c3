import { createHash } from 'node:crypto';
import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { GetQueueUrlCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { createHireflowClient } from '@hireflow/client';
import { topology } from '@hireflow/contracts';
import type { CaughtEmail } from '@hireflow/testing/smtp';
import type { Redis } from 'ioredis';
import pg from 'pg';
import { faultsAround, faultsInSendWindow, type LogWrite, sendWindowCloses } from './attribution.ts';
import type { FaultRecord } from './faults.ts';
import type { Plan } from './plan.ts';
import { BAD_TEXT_ACCEPTED, type OpRecord, type SmallTenantRecord } from './workload.ts';

export interface Anomaly {
  kind: string;
  what: string;
  at: number;
  faults: string[];
}

export interface EffectCount {
  expected: number;
  seen: number;
  lost: number;
  duplicated: number;
}

export interface DeadLetter {
  where: string;
  id: string;
  reason: string;
  poison: boolean;
}

export interface CheckResult {
  operations: {
    planned: number;
    ok: number;
    failed: number;
    byKind: Record<string, { ok: number; failed: number }>;
    /** Postings with text SQS cannot carry: refused with 400, accepted (a defect), or given up at the deadline. */
    badText: BadTextOutcome;
  };
  postings: EffectCount;
  matches: EffectCount;
  variants: EffectCount;
  /** `queued`: not sent yet, still queued in notifications' log when the drain ended (backlog, not loss). */
  emails: EffectCount & {
    queued: number;
    sameIdCopies: number;
    /** Same-Message-ID copies with no fault in their send window (faultsInSendWindow): unexplained. */
    sameIdUntied: number;
    differentIdCopies: number;
    unexpected: number;
    /** From the SMTP 250 to notifications' log write (sent_at), over emails sent once: how long send windows stay open. */
    logWriteMs: { count: number; p50: number; p99: number; max: number };
  };
  deadLetters: DeadLetter[];
  poison: { sent: number; expectedPlacements: number; missingPlacements: number };
  /** Dead letters that are not poison: each one is a bug report. */
  unexpectedDeadLetters: number;
  latencyMs: { count: number; p50: number; p90: number; p99: number; max: number };
  /** The small tenant beside the big one (two tenants of very different sizes), when the run had one. */
  smallTenant?: SmallTenantResult;
  anomalies: Anomaly[];
  faults: FaultRecord[];
}

export interface CheckSources {
  plan: Plan;
  records: OpRecord[];
  faults: FaultRecord[];
  emails: CaughtEmail[];
  api: string;
  apiKey: string;
  tenantId: string;
  /** The small tenant's roles, when the run had one (its own key: the checks above read the big tenant's). */
  smallTenant?: SmallTenantRecord[];
  /** The run's own Postgres (admin URL without a database), read directly. */
  databaseUrl: (service: string) => string;
  sqs: SQSClient;
  s3: S3Client;
  redis: Redis;
  topologyPrefix: string;
  redisPrefix: (service: string) => string;
}

export const digestOf = (key: string) => createHash('sha256').update(key).digest('hex');

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function query<T extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/** What should have happened, from the history and the sources of truth (matching's table). */
/**
 * The queues an event the workload publishes reaches: those subscribed to its
 * topic and type, and of a service's two inboxes only the interactive one (the
 * workload's events carry no `lane` attribute; SNS's filter sends them there,
 * docs/fairness.md), so a poison event is expected in those queues' DLQs only.
 */
export function queuesReached(topic: string, type: string): string[] {
  return Object.entries(topology.queues)
    .filter(
      ([, def]) =>
        def.lane !== 'bulk' &&
        def.subscriptions.some((s) => s.topic === topic && (s.types as string[]).includes(type)),
    )
    .map(([name]) => name);
}

export async function expectedEffects(sources: CheckSources) {
  const { plan, records } = sources;
  const candidates = new Map<string, number>();
  const postings = new Map<string, { at: number; title: string; op: number }>();
  const uploads = new Map<string, number>();
  // Groups share words: a candidate must match every open posting of its group, whatever matching recorded.
  const candidateGroup = new Map<string, number>();
  const postingGroup = new Map<string, number>();
  const closedInPlan = new Set(plan.ops.flatMap((op) => (op.kind === 'close' ? [op.posting] : [])));
  const injected: { jobId: string; candidateId: string; at: number }[] = [];
  for (const record of records) {
    if (!record?.ok || !record.id) continue;
    const op = plan.ops[record.index]!;
    const original = op.kind === 'replay' ? plan.ops[op.of]! : op;
    const at = record.startedAt;
    if (original.kind === 'candidate' || original.kind === 'out-of-order') {
      if (op.kind === 'sns-duplicate') continue;
      candidates.set(record.id, Math.min(candidates.get(record.id) ?? at, at));
      candidateGroup.set(record.id, original.group);
    } else if (original.kind === 'posting') {
      const known = postings.get(record.id);
      postings.set(record.id, {
        at: Math.min(known?.at ?? at, at),
        title: original.n.toString(),
        op: original.n,
      });
      if (!closedInPlan.has(original.n)) postingGroup.set(record.id, original.group);
    } else if (original.kind === 'upload') {
      uploads.set(record.id, Math.min(uploads.get(record.id) ?? at, at));
    }
    if (op.kind === 'out-of-order') {
      const jobId = records[op.posting]?.id;
      if (jobId) injected.push({ jobId, candidateId: record.id, at });
    }
  }
  const matched = await query<{ posting_id: string; candidate_id: string; found_at: Date }>(
    sources.databaseUrl('matching'),
    'SELECT posting_id, candidate_id, found_at FROM posting_match WHERE tenant_id = $1',
    [sources.tenantId],
  );
  const computed = await query<{ id: string }>(
    sources.databaseUrl('matching'),
    'SELECT id FROM posting WHERE computed_at IS NOT NULL AND tenant_id = $1',
    [sources.tenantId],
  );
  const pairs = new Map<string, { jobId: string; candidateId: string; at: number }>();
  const pairAt = (jobId: string, candidateId: string) =>
    Math.max(postings.get(jobId)?.at ?? 0, candidates.get(candidateId) ?? 0);
  for (const m of matched) {
    pairs.set(`${m.posting_id}:${m.candidate_id}`, {
      jobId: m.posting_id,
      candidateId: m.candidate_id,
      at: pairAt(m.posting_id, m.candidate_id),
    });
  }
  for (const m of injected) pairs.set(`${m.jobId}:${m.candidateId}`, m);
  const byGroup = new Map<number, string[]>();
  for (const [id, group] of candidateGroup) byGroup.set(group, [...(byGroup.get(group) ?? []), id]);
  for (const [jobId, group] of postingGroup) {
    for (const candidateId of byGroup.get(group) ?? []) {
      pairs.set(`${jobId}:${candidateId}`, { jobId, candidateId, at: pairAt(jobId, candidateId) });
    }
  }
  const emails = new Map<string, { key: string; at: number }>();
  for (const [id, at] of candidates)
    emails.set(digestOf(`welcome-email:${id}`), { key: `welcome-email:${id}`, at });
  for (const p of pairs.values()) {
    const key = `match-email:${p.jobId}:${p.candidateId}`;
    emails.set(digestOf(key), { key, at: p.at });
  }
  for (const { id } of [...computed, ...[...postingGroup.keys()].map((id) => ({ id }))]) {
    emails.set(digestOf(`job-matched:${id}`), { key: `job-matched:${id}`, at: postings.get(id)?.at ?? 0 });
  }
  return { candidates, postings, uploads, pairs, emails, matchedRows: matched.length };
}

async function drainQueue(sqs: SQSClient, name: string) {
  const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: name }));
  const messages: { body: string; reason: string }[] = [];
  for (let i = 0; i < 500; i++) {
    const res = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 3600,
        WaitTimeSeconds: 0,
        MessageAttributeNames: ['All'],
      }),
    );
    if (!res.Messages?.length) break;
    for (const m of res.Messages) {
      messages.push({
        body: m.Body ?? '',
        reason: m.MessageAttributes?.['dead-letter-reason']?.StringValue ?? '(no reason attribute)',
      });
    }
  }
  return messages;
}

/**
 * An accepted upload as the API shows it, or `gone` when it answers 404 (media
 * removed it): its variants count as lost and the report is still written,
 * where a thrown 404 stopped the checker and the run left no report.
 */
export async function uploadOrGone(
  read: () => Promise<{ status: string; variants: { name: string }[] }>,
): Promise<{ status: string; variants: { name: string }[] }> {
  try {
    return await read();
  } catch (error) {
    if ((error as { status?: number }).status === 404) return { status: 'gone', variants: [] };
    throw error;
  }
}

/** Reads every sink and compares it with the history: lost, duplicated, dead-lettered, late. */
export async function check(sources: CheckSources): Promise<CheckResult> {
  const { plan, records, faults } = sources;
  const anomalies: Anomaly[] = [];
  const anomaly = (kind: string, what: string, at: number, to = at, tied = faultsAround(faults, at, to)) =>
    anomalies.push({ kind, what, at, faults: tied });
  const expected = await expectedEffects(sources);
  const client = createHireflowClient({ baseUrl: sources.api, apiKey: sources.apiKey });

  // Operations.
  const byKind: Record<string, { ok: number; failed: number }> = {};
  for (const r of records) {
    if (!r) continue;
    byKind[r.kind] ??= { ok: 0, failed: 0 };
    const k = byKind[r.kind]!;
    if (r.ok) k.ok++;
    else k.failed++;
  }

  // Postings: one per intent (the Idempotency-Key), whatever was replayed.
  const intentIds = new Map<number, Set<string>>();
  for (const r of records) {
    if (!r?.ok || !r.id) continue;
    const op = plan.ops[r.index]!;
    const intent = op.kind === 'replay' ? op.of : r.index;
    const original = plan.ops[intent]!;
    if (original.kind !== 'posting' && original.kind !== 'upload') continue;
    if (!intentIds.has(intent)) intentIds.set(intent, new Set());
    intentIds.get(intent)!.add(r.id);
  }
  // Every tenant's postings must end matched; matches are read through the big tenant's key (its postings).
  const allJobRows = await query<{ id: string; title: string; status: string; tenant_id: string }>(
    sources.databaseUrl('jobs'),
    'SELECT id, title, status, tenant_id FROM job_posting',
  );
  const jobRows = allJobRows.filter((row) => row.tenant_id === sources.tenantId);
  const byTitle = new Map<string, number>();
  for (const row of jobRows) byTitle.set(row.title, (byTitle.get(row.title) ?? 0) + 1);
  let postingIntents = 0;
  let postingDuplicates = 0;
  for (const [intent, ids] of intentIds) {
    if (plan.ops[intent]!.kind !== 'posting') continue;
    postingIntents++;
    if (ids.size > 1) {
      postingDuplicates += ids.size - 1;
      anomaly(
        'duplicated posting',
        `intent #${intent}: ${ids.size} postings`,
        records[intent]?.startedAt ?? 0,
      );
    }
  }
  const stuck = allJobRows.filter((r) => r.status === 'processing');
  for (const row of stuck) {
    anomaly('posting never matched', `posting ${row.id}`, expected.postings.get(row.id)?.at ?? 0);
  }

  // Matches: matching's table (and the injected ones) against jobs' read model through the API.
  const seenPairs = new Map<string, number>();
  const postingIds = [...new Set(jobRows.map((r) => r.id))];
  const titleOf = new Map(jobRows.map((r) => [r.id, r.title]));
  const intentPairs = new Map<string, number>();
  for (let i = 0; i < postingIds.length; i += 8) {
    await Promise.all(
      postingIds.slice(i, i + 8).map(async (jobId) => {
        for await (const match of client.jobs.allMatches(jobId, { limit: 100 })) {
          const key = `${jobId}:${match.candidateId}`;
          seenPairs.set(key, (seenPairs.get(key) ?? 0) + 1);
          const intentKey = `${titleOf.get(jobId)}:${match.candidateId}`;
          intentPairs.set(intentKey, (intentPairs.get(intentKey) ?? 0) + 1);
        }
      }),
    );
  }
  let matchesLost = 0;
  for (const [key, pair] of expected.pairs) {
    if (!seenPairs.has(key)) {
      matchesLost++;
      anomaly('lost match', key, pair.at);
    }
  }
  let matchesDuplicated = 0;
  for (const [key, n] of intentPairs) {
    if (n > 1) {
      matchesDuplicated += n - 1;
      anomaly('duplicated match', `${key} ×${n}`, 0);
    }
  }

  // Variants: each accepted upload ready, with one thumb and one medium, both in S3.
  const objects = new Set<string>();
  let token: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const res = await sources.s3.send(
      new ListObjectsV2Command({
        Bucket: `${sources.topologyPrefix}media`,
        ContinuationToken: token,
      }),
    );
    for (const o of res.Contents ?? []) objects.add(o.Key!);
    token = res.NextContinuationToken;
    if (!token) break;
  }
  let variantsLost = 0;
  let variantsDuplicated = 0;
  const uploadIds = [...expected.uploads.keys()];
  for (let i = 0; i < uploadIds.length; i += 8) {
    await Promise.all(
      uploadIds.slice(i, i + 8).map(async (id) => {
        const upload = await uploadOrGone(() => client.uploads.get(id));
        const names = upload.variants.map((v) => v.name);
        for (const name of ['thumb', 'medium']) {
          const n = names.filter((x) => x === name).length;
          const inS3 = objects.has(`uploads/${sources.tenantId}/${id}/${name}.webp`);
          if (n === 0 || !inS3) {
            variantsLost++;
            anomaly(
              'lost variant',
              `${id} ${name} (${upload.status}${inS3 ? '' : ', not in S3'})`,
              expected.uploads.get(id)!,
            );
          }
          if (n > 1) variantsDuplicated += n - 1;
        }
      }),
    );
  }
  for (const [intent, ids] of intentIds) {
    if (plan.ops[intent]!.kind === 'upload' && ids.size > 1) {
      variantsDuplicated += 2 * (ids.size - 1);
      anomaly('duplicated upload', `intent #${intent}: ${ids.size} uploads`, records[intent]?.startedAt ?? 0);
    }
  }

  // Emails: by intent key (its digest travels in X-Idempotency-Key), then by what a reader sees.
  const byKey = new Map<string, CaughtEmail[]>();
  for (const email of sources.emails) {
    const key = email.key ?? `(none) ${email.messageId}`;
    if (!byKey.has(key)) byKey.set(key, []);
    byKey.get(key)!.push(email);
  }
  const latencies: number[] = [];
  let emailsLost = 0;
  let emailsQueued = 0;
  let sameIdCopies = 0;
  let sameIdUntied = 0;
  // An email not sent yet but queued in notifications' log is backlog at the drain bound, not a loss.
  const queuedKeys = new Set(
    (
      await query<{ key: string }>(
        sources.databaseUrl('notifications'),
        "SELECT key FROM notification_log WHERE status = 'queued'",
      )
    ).map((row) => row.key),
  );
  // How long each email sent once took from its 250 to its log write (sent_at): a copy's send
  // window stays open as long as its neighbours' took (sendWindowCloses). Both ends are this
  // host's clock: the run's (clock.ts: the wall clock at its start plus monotonic time) and
  // Postgres's now(); they part only if the wall clock is stepped during the run.
  const loggedAt = new Map(
    (
      await query<{ key: string; ms: number }>(
        sources.databaseUrl('notifications'),
        "SELECT key, extract(epoch FROM sent_at)::float8 * 1000 AS ms FROM notification_log WHERE status = 'sent' AND sent_at IS NOT NULL",
      )
    ).map((row) => [row.key, Number(row.ms)]),
  );
  const logWrites: LogWrite[] = [];
  for (const [digest, want] of expected.emails) {
    const got = byKey.get(digest);
    const at = loggedAt.get(want.key);
    if (got?.length === 1 && at !== undefined)
      logWrites.push({ acceptedAt: got[0]!.acceptedAt, loggedAt: at });
  }
  logWrites.sort((a, b) => a.acceptedAt - b.acceptedAt);
  const logWriteGaps = logWrites.map((w) => w.loggedAt - w.acceptedAt).sort((a, b) => a - b);
  for (const [digest, want] of expected.emails) {
    const got = byKey.get(digest);
    if (!got) {
      if (queuedKeys.has(want.key)) {
        emailsQueued++;
        continue;
      }
      emailsLost++;
      anomaly('lost email', want.key.replace(/:.*/, ''), want.at);
      continue;
    }
    const firstCopy = got.reduce((a, b) => (b.acceptedAt < a.acceptedAt ? b : a));
    const first = firstCopy.acceptedAt;
    if (want.at > 0) latencies.push(first - want.at);
    const ids = new Set(got.map((e) => e.messageId));
    if (got.length > ids.size || (ids.size === 1 && got.length > 1)) {
      const copies = got.length - ids.size;
      sameIdCopies += copies;
      const windowMs = sendWindowCloses(first, logWrites) - first;
      const tied = faultsInSendWindow(faults, firstCopy, windowMs);
      if (tied.length === 0) sameIdUntied += copies;
      // The later copies' delays say which path sent them again: nodemailer's own re-send of a
      // message whose connection closed comes within a second or two, a retry after a lost
      // lease or a dead holder 15 s (the send lease) or more later.
      const later = got
        .map((e) => e.acceptedAt - first)
        .filter((ms) => ms > 0)
        .sort((a, b) => a - b)
        .map((ms) => `+${(ms / 1000).toFixed(1)} s`);
      anomaly(
        'same Message-ID copy',
        `${want.key.replace(/:.*/, '')} ${digest.slice(0, 8)} ×${got.length}${later.length ? ` (${later.join(', ')})` : ''}${firstCopy.lagMs >= 50 ? `, sink lag ${Math.round(firstCopy.lagMs)} ms` : ''}, window ${(windowMs / 1000).toFixed(1)} s`,
        first,
        first,
        tied,
      );
    }
  }
  const smallTenant = sources.smallTenant
    ? checkSmallTenant(sources.smallTenant, sources.emails, queuedKeys)
    : undefined;
  for (const key of smallTenant?.lostKeys ?? [])
    anomaly('lost email (small tenant)', key.replace(/:.*/, ''), 0);
  const unexpected = [...byKey.keys()].filter(
    (k) => !expected.emails.has(k) && !smallTenant?.expectedDigests.has(k),
  ).length;
  const byReader = new Map<string, Set<string>>();
  for (const email of sources.emails) {
    const reader = `${email.envelopeTo.join(',')}|${email.parsed?.subject ?? ''}`;
    if (!byReader.has(reader)) byReader.set(reader, new Set());
    byReader.get(reader)!.add(email.messageId ?? '');
  }
  let differentIdCopies = 0;
  for (const [reader, ids] of byReader) {
    if (ids.size > 1) {
      differentIdCopies += ids.size - 1;
      anomaly('different Message-ID copy', `${reader.replace(/^[^|]*\|/, '')} ×${ids.size}`, 0);
    }
  }

  // Dead letters: the DLQs and BullMQ's failed sets.
  const poisonIds = new Map<string, string[]>();
  for (const op of plan.ops) {
    if (op.kind !== 'poison') continue;
    poisonIds.set(op.eventId, queuesReached(op.topic, op.type));
  }
  const sentPoison = new Set(
    records
      .filter((r) => r?.ok && plan.ops[r.index]!.kind === 'poison')
      .map((r) => {
        const op = plan.ops[r.index]!;
        return op.kind === 'poison' ? op.eventId : '';
      }),
  );
  const deadLetters: DeadLetter[] = [];
  const placements = new Set<string>();
  for (const queue of Object.keys(topology.queues)) {
    for (const m of await drainQueue(sources.sqs, `${sources.topologyPrefix}${queue}-dlq`)) {
      let id = '(unparsable)';
      try {
        id = (JSON.parse(m.body) as { id?: string }).id ?? id;
      } catch {}
      const poison = poisonIds.has(id);
      if (poison) placements.add(`${queue}:${id}`);
      deadLetters.push({ where: `${queue}-dlq`, id, reason: m.reason.slice(0, 160), poison });
    }
  }
  for (const service of ['jobs', 'matching', 'notifications', 'media']) {
    const prefix = sources.redisPrefix(service);
    const keys = await sources.redis.keys(`${prefix}:*:failed`);
    for (const key of keys) {
      const queue = key.slice(prefix.length + 1, -':failed'.length);
      const ids = await sources.redis.zrange(key, '0', '999');
      for (const id of ids) {
        const reason = (await sources.redis.hget(`${prefix}:${queue}:${id}`, 'failedReason')) ?? '';
        deadLetters.push({
          where: `${service} BullMQ ${queue}`,
          id,
          reason: reason.slice(0, 160),
          poison: false,
        });
      }
    }
  }
  let expectedPlacements = 0;
  let missingPlacements = 0;
  for (const [id, queues] of poisonIds) {
    if (!sentPoison.has(id)) continue;
    for (const queue of queues) {
      expectedPlacements++;
      if (!placements.has(`${queue}:${id}`)) {
        missingPlacements++;
        anomaly('poison not dead-lettered', `${id} in ${queue}`, 0);
      }
    }
  }
  const unexpectedDeadLetters = deadLetters.filter((d) => !d.poison).length;
  for (const d of deadLetters.filter((x) => !x.poison)) anomaly('dead letter', `${d.where}: ${d.reason}`, 0);

  latencies.sort((a, b) => a - b);
  const emailSeen = [...expected.emails.keys()].filter((k) => byKey.has(k)).length;
  return {
    operations: {
      planned: plan.ops.length,
      ok: records.filter((r) => r?.ok).length,
      failed: records.filter((r) => r && !r.ok).length,
      byKind,
      badText: badTextOutcome(records),
    },
    postings: {
      expected: postingIntents,
      seen: jobRows.length,
      lost: stuck.length,
      duplicated: postingDuplicates,
    },
    matches: {
      expected: expected.pairs.size,
      seen: [...seenPairs.keys()].length,
      lost: matchesLost,
      duplicated: matchesDuplicated,
    },
    variants: {
      expected: expected.uploads.size * 2,
      seen: expected.uploads.size * 2 - variantsLost,
      lost: variantsLost,
      duplicated: variantsDuplicated,
    },
    emails: {
      expected: expected.emails.size,
      seen: emailSeen,
      lost: emailsLost,
      queued: emailsQueued,
      duplicated: sameIdCopies + differentIdCopies,
      sameIdCopies,
      sameIdUntied,
      differentIdCopies,
      unexpected,
      logWriteMs: {
        count: logWriteGaps.length,
        p50: percentile(logWriteGaps, 50),
        p99: percentile(logWriteGaps, 99),
        max: logWriteGaps[logWriteGaps.length - 1] ?? 0,
      },
    },
    deadLetters,
    poison: { sent: sentPoison.size, expectedPlacements, missingPlacements },
    unexpectedDeadLetters,
    latencyMs: {
      count: latencies.length,
      p50: percentile(latencies, 50),
      p90: percentile(latencies, 90),
      p99: percentile(latencies, 99),
      max: latencies[latencies.length - 1] ?? 0,
    },
    ...(smallTenant ? { smallTenant } : {}),
    anomalies,
    faults,
  };
}

/** A run passes when nothing is lost, no match or variant is duplicated, no email copy has a new id, every same-id copy has a fault in its send window, and the DLQs hold exactly the poison. */
export interface BadTextOutcome {
  refused: number;
  accepted: number;
  /** No answer before the op's deadline (the API unreachable or overloaded): nothing was accepted. */
  gaveUp: number;
}

/**
 * What became of the bad-text postings. Only an accepted one is a defect:
 * one that got no answer before its deadline (a long Postgres cut holds the
 * API's key check) was not accepted either, as an op of any other kind that
 * gives up at its deadline is not a loss.
 */
export function badTextOutcome(
  records: readonly (Pick<OpRecord, 'kind' | 'ok' | 'error'> | undefined)[],
): BadTextOutcome {
  const outcome = { refused: 0, accepted: 0, gaveUp: 0 };
  for (const r of records) {
    if (r?.kind !== 'bad-text') continue;
    if (r.ok) outcome.refused++;
    else if (r.error === BAD_TEXT_ACCEPTED) outcome.accepted++;
    else outcome.gaveUp++;
  }
  return outcome;
}

export function verdict(result: CheckResult): string[] {
  const problems: string[] = [];
  if (result.emails.lost) problems.push(`${result.emails.lost} lost emails`);
  if (result.emails.queued) problems.push(`${result.emails.queued} emails still queued when the drain ended`);
  if (result.postings.lost) problems.push(`${result.postings.lost} postings never matched`);
  if (result.matches.lost) problems.push(`${result.matches.lost} lost matches`);
  if (result.variants.lost) problems.push(`${result.variants.lost} lost variants`);
  if (result.matches.duplicated) problems.push(`${result.matches.duplicated} duplicated matches`);
  if (result.variants.duplicated) problems.push(`${result.variants.duplicated} duplicated variants`);
  if (result.postings.duplicated) problems.push(`${result.postings.duplicated} duplicated postings`);
  if (result.emails.sameIdUntied)
    problems.push(
      `${result.emails.sameIdUntied} same-Message-ID email copies with no fault in their send window`,
    );
  if (result.emails.differentIdCopies)
    problems.push(`${result.emails.differentIdCopies} email copies with different ids`);
  if (result.poison.missingPlacements)
    problems.push(`${result.poison.missingPlacements} poison messages not dead-lettered`);
  if (result.operations.badText.accepted)
    problems.push(`${result.operations.badText.accepted} postings with text SQS cannot carry accepted`);
  if (result.unexpectedDeadLetters)
    problems.push(`${result.unexpectedDeadLetters} dead letters that are not poison`);
  const small = result.smallTenant;
  if (small?.lost) problems.push(`${small.lost} lost emails of the small tenant`);
  if (small?.queued)
    problems.push(`${small.queued} emails of the small tenant still queued when the drain ended`);
  if (small?.differentIdCopies)
    problems.push(`${small.differentIdCopies} email copies with different ids of the small tenant`);
  return problems;
}

export interface SmallTenantResult {
  roles: { planned: number; posted: number; failed: number };
  /** Its emails: a welcome per person, a match per role and person who fits it, a summary per role. */
  emails: { expected: number; seen: number };
  lost: number;
  /** Not sent yet but queued in notifications' log when the drain ended. */
  queued: number;
  /** Copies of one email under one Message-ID (a fault between SMTP's accept and the log's write). */
  sameIdCopies: number;
  /** Copies under another Message-ID: a reader sees the same email twice. */
  differentIdCopies: number;
  /**
   * Each role's latency: its first request (registering its people) → the
   * last of its match emails accepted by SMTP; roles with a match email
   * missing are left out (counted in `lost` or `queued`).
   */
  latencyMs: { count: number; p50: number; p99: number; max: number };
  /** Intent keys of its lost emails. */
  lostKeys: string[];
  /** Digests of every email it expects (to tell its emails from unexpected ones). */
  expectedDigests: Set<string>;
}

/**
 * The small tenant's part of the check, from its own history and the SMTP
 * sink alone: every email it expects arrived once, and how long each role
 * took to reach the people who fit it. `queuedKeys`: intent keys still
 * queued in notifications' log (backlog at the drain bound, not loss).
 */
export function checkSmallTenant(
  records: SmallTenantRecord[],
  emails: CaughtEmail[],
  queuedKeys: ReadonlySet<string> = new Set(),
): SmallTenantResult {
  const byDigest = new Map<string, CaughtEmail[]>();
  for (const email of emails) {
    if (!email.key) continue;
    byDigest.set(email.key, [...(byDigest.get(email.key) ?? []), email]);
  }
  const expectedDigests = new Set<string>();
  const lostKeys: string[] = [];
  let expected = 0;
  let seen = 0;
  let queued = 0;
  let sameIdCopies = 0;
  let differentIdCopies = 0;
  /** The first acceptance of the key's email, or undefined when it is missing. */
  const look = (key: string): number | undefined => {
    const digest = digestOf(key);
    expectedDigests.add(digest);
    expected++;
    const got = byDigest.get(digest);
    if (!got) {
      if (queuedKeys.has(key)) queued++;
      else lostKeys.push(key);
      return undefined;
    }
    seen++;
    const ids = new Set(got.map((e) => e.messageId));
    differentIdCopies += ids.size - 1;
    sameIdCopies += got.length - ids.size;
    return Math.min(...got.map((e) => e.acceptedAt));
  };
  const latencies: number[] = [];
  const planned = records.filter(Boolean);
  const posted = planned.filter((r) => r.ok && r.postingId);
  for (const record of posted) {
    for (const id of record.candidateIds) look(`welcome-email:${id}`);
    look(`job-matched:${record.postingId}`);
    const matchAt = record.candidateIds.map((id) => look(`match-email:${record.postingId}:${id}`));
    if (matchAt.length > 0 && matchAt.every((at) => at !== undefined)) {
      latencies.push(Math.max(...(matchAt as number[])) - record.startedAt);
    }
  }
  latencies.sort((a, b) => a - b);
  return {
    roles: { planned: planned.length, posted: posted.length, failed: planned.length - posted.length },
    emails: { expected, seen },
    lost: lostKeys.length,
    queued,
    sameIdCopies,
    differentIdCopies,
    latencyMs: {
      count: latencies.length,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: latencies[latencies.length - 1] ?? 0,
    },
    lostKeys,
    expectedDigests,
  };
}
