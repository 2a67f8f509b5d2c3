import { createHash } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';
import { CreateTopicCommand, PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import { createHireflowClient, HireflowProblem, type NewCandidate, type NewJob } from '@hireflow/client';
import { createEvent, escapeForSqs } from '@hireflow/contracts';
import { now } from './clock.ts';
import type { Plan, PlannedOp } from './plan.ts';

/** What happened to one planned operation. */
/** A bad-text posting's error when the API accepted it (the only outcome that fails the run). */
export const BAD_TEXT_ACCEPTED = 'a description SQS cannot carry was accepted';

export interface OpRecord {
  index: number;
  kind: PlannedOp['kind'];
  startedAt: number;
  endedAt?: number;
  ok?: boolean;
  error?: string;
  attempts: number;
  /** The id the API gave (candidate, posting, upload), or the one a replay was answered with. */
  id?: string;
  /** Candidates: 202 (a new candidate) rather than 200 (the email was known). */
  created?: boolean;
}

export interface WorkloadContext {
  plan: Plan;
  api: string;
  apiKey: string;
  tenantId: string;
  sns: SNSClient;
  topicPrefix: string;
  /** Operations per second. */
  rate: number;
  maxInFlight: number;
  /** How long one operation keeps retrying before it is recorded as failed. */
  opDeadlineMs: number;
  /** Aborted: nothing more is sent. */
  signal?: AbortSignal | undefined;
  log: (line: string) => void;
}

export const candidateEmail = (n: number) => `candidate-${n}@chaos.test`;
export const postingContact = (n: number) => `posting-${n}@chaos.test`;

export function candidateBody(plan: Plan, op: { group: number; n: number }): NewCandidate {
  const words = plan.vocabulary[op.group]!;
  return {
    name: `Candidate ${op.n}`,
    email: candidateEmail(op.n),
    headline: words.join(' '),
    skills: words.slice(0, 3),
    location: 'Remote',
  };
}

export function postingBody(plan: Plan, op: { group: number; n: number }): NewJob {
  const words = plan.vocabulary[op.group]!;
  return {
    title: `Role ${op.n} ${words[0]} ${words[1]}`,
    description: words.join(' '),
    skills: words.slice(0, 3),
    location: 'Remote',
    remote: true,
    contactEmail: postingContact(op.n),
  };
}

/** A small valid PNG (an RGB gradient) of the given size: media makes its variants from it. */
export function pngOf(width: number, height: number, tint: number): Uint8Array {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body) >>> 0, 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  header[9] = 2;
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 3);
    for (let x = 0; x < width; x++) {
      row[1 + x * 3] = (x * 4 + tint) & 255;
      row[2 + x * 3] = (y * 4) & 255;
      row[3 + x * 3] = tint & 255;
    }
    rows.push(row);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const retryable = (error: unknown) =>
  !(error instanceof HireflowProblem) || error.status >= 500 || error.status === 409 || error.status === 429;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Sends the plan at `rate` operations a second (at most `maxInFlight` at
 * once), through the public API and straight into SNS, retrying each one as
 * a careful client does (same Idempotency-Key) until its deadline.
 */
export async function runWorkload(
  ctx: WorkloadContext,
  records: OpRecord[],
  onOp: (record: OpRecord) => void,
): Promise<void> {
  const client = createHireflowClient({ baseUrl: ctx.api, apiKey: ctx.apiKey });
  const topicArns = new Map<string, string>();
  const topicArn = async (topic: string) => {
    let arn = topicArns.get(topic);
    if (!arn) {
      const created = await ctx.sns.send(new CreateTopicCommand({ Name: `${ctx.topicPrefix}${topic}` }));
      arn = created.TopicArn!;
      topicArns.set(topic, arn);
    }
    return arn;
  };
  const publish = async (topic: string, type: string, body: unknown) => {
    await ctx.sns.send(
      new PublishCommand({
        TopicArn: await topicArn(topic),
        // Escaped as any sender must for text SQS cannot carry raw (the bad-text poison).
        Message: escapeForSqs(JSON.stringify(body)),
        MessageAttributes: { type: { DataType: 'String', StringValue: type } },
      }),
    );
  };
  const done = new Map<number, Promise<OpRecord>>();
  const idOf = async (index: number) => {
    const record = await done.get(index);
    return record?.ok ? record.id : undefined;
  };

  /** Retries `attempt` until it succeeds, fails for good, or the deadline passes. */
  const retrying = async (record: OpRecord, attempt: (signal: AbortSignal) => Promise<void>) => {
    const deadline = record.startedAt + ctx.opDeadlineMs;
    for (let tries = 0; tries < 1000; tries++) {
      if (ctx.signal?.aborted) {
        record.ok = false;
        record.error = 'run aborted';
        return;
      }
      record.attempts++;
      try {
        await attempt(AbortSignal.timeout(Math.round(Math.max(1000, Math.min(10_000, deadline - now())))));
        record.ok = true;
        return;
      } catch (error) {
        record.error = (error as Error).message.slice(0, 200);
        if (!retryable(error) || now() + 500 > deadline) {
          record.ok = false;
          return;
        }
        await sleep(Math.min(2000, 100 * 2 ** Math.min(tries, 5)));
      }
    }
    record.ok = false;
  };

  const candidateOf = (op: { group: number; n: number }) => candidateBody(ctx.plan, op);
  const execute = async (op: PlannedOp, record: OpRecord): Promise<void> => {
    switch (op.kind) {
      case 'candidate':
        return retrying(record, async (signal) => {
          const res = await client.candidates.register(candidateOf(op), { idempotencyKey: op.key, signal });
          record.id = res.id;
          record.created = res.created;
        });
      case 'posting':
        return retrying(record, async (signal) => {
          const res = await client.jobs.post(postingBody(ctx.plan, op), { idempotencyKey: op.key, signal });
          record.id = res.id;
        });
      case 'close': {
        const id = op.posting >= 0 ? await idOf(op.posting) : undefined;
        if (!id) {
          // Its posting is named by an out-of-order match (it must stay open), or was never accepted.
          record.ok = op.posting < 0;
          record.error = 'nothing to close';
          return;
        }
        return retrying(record, async (signal) => {
          await client.jobs.close(id, { idempotencyKey: op.key, signal });
          record.id = id;
        });
      }
      case 'upload': {
        const owner = op.owner === undefined ? undefined : await idOf(op.owner);
        const bytes = pngOf(48, 32, op.n % 256);
        return retrying(record, async (signal) => {
          const res = await client.uploads.create(bytes, {
            idempotencyKey: op.key,
            signal,
            filename: 'logo.png',
            contentType: 'image/png',
            ...(owner ? { owner: { type: 'job' as const, id: owner } } : {}),
          });
          record.id = res.id;
        });
      }
      case 'replay': {
        const original = ctx.plan.ops[op.of]!;
        const key = op.sameKey && 'key' in original ? original.key : op.key;
        if (original.kind === 'candidate') {
          return retrying(record, async (signal) => {
            const res = await client.candidates.register(candidateOf(original), {
              idempotencyKey: key,
              signal,
            });
            record.id = res.id;
            record.created = res.created;
          });
        }
        if (original.kind === 'posting') {
          return retrying(record, async (signal) => {
            const res = await client.jobs.post(postingBody(ctx.plan, original), {
              idempotencyKey: key,
              signal,
            });
            record.id = res.id;
          });
        }
        if (original.kind === 'upload') {
          // Replays the upload only once its owner is known, so both send the same form.
          const owner = original.owner === undefined ? undefined : await idOf(original.owner);
          const bytes = pngOf(48, 32, original.n % 256);
          return retrying(record, async (signal) => {
            const res = await client.uploads.create(bytes, {
              idempotencyKey: key,
              signal,
              filename: 'logo.png',
              contentType: 'image/png',
              ...(owner ? { owner: { type: 'job' as const, id: owner } } : {}),
            });
            record.id = res.id;
          });
        }
        record.ok = false;
        return;
      }
      case 'sns-duplicate': {
        const id = await idOf(op.candidate);
        const original = ctx.plan.ops[op.candidate]!;
        if (!id || (original.kind !== 'candidate' && original.kind !== 'out-of-order')) {
          record.ok = false;
          record.error = 'no candidate';
          return;
        }
        const body = candidateOf(original);
        const data = { candidateId: id, tenantId: ctx.tenantId, ...body };
        const event = createEvent('candidate.registered.v1', data, {
          source: 'hireflow/jobs',
          id: op.eventId,
        });
        const again = createEvent('candidate.registered.v1', data, {
          source: 'hireflow/jobs',
          id: op.newEventId,
        });
        record.id = id;
        return retrying(record, async () => {
          for (let i = 0; i < op.copies; i++) await publish('jobs-events', event.type, event);
          await publish('jobs-events', again.type, again);
        });
      }
      case 'out-of-order': {
        const jobId = await idOf(op.posting);
        await retrying(record, async (signal) => {
          const res = await client.candidates.register(candidateOf(op), { idempotencyKey: op.key, signal });
          record.id = res.id;
          record.created = res.created;
        });
        if (!record.ok || !jobId || !record.id) {
          record.ok = false;
          return;
        }
        const match = createEvent(
          'match.found.v1',
          { matchId: op.matchId, jobId, candidateId: record.id, tenantId: ctx.tenantId, score: 0.9 },
          { source: 'hireflow/matching', id: op.matchId },
        );
        return retrying(record, () => publish('matching-events', match.type, match));
      }
      case 'bad-text': {
        let accepted = false;
        await retrying(record, async (signal) => {
          const body = postingBody(ctx.plan, { group: 0, n: op.n });
          try {
            await client.jobs.post(
              { ...body, description: `${body.description} ${op.text}` },
              { idempotencyKey: op.key, signal },
            );
            accepted = true;
          } catch (error) {
            const refused =
              error instanceof HireflowProblem &&
              error.status === 400 &&
              error.errors.some((e) => e.field === 'description');
            if (!refused) throw error;
          }
        });
        if (accepted) {
          record.ok = false;
          record.error = BAD_TEXT_ACCEPTED;
        }
        return;
      }
      case 'poison':
        if (op.badText !== undefined) {
          // A valid event but for one string SQS cannot carry, sent escaped: poison all the same.
          const poisoned =
            op.type === 'candidate.registered.v1'
              ? {
                  ...createEvent(
                    op.type,
                    {
                      candidateId: op.eventId,
                      tenantId: ctx.tenantId,
                      name: 'Poison',
                      email: 'poison@chaos.test',
                      headline: 'poison',
                      skills: [],
                      location: 'Remote',
                    },
                    { source: 'hireflow/jobs', id: op.eventId },
                  ),
                  subject: `poison${op.badText}`,
                }
              : {
                  ...createEvent(
                    op.type,
                    {
                      matchId: op.eventId,
                      jobId: op.eventId,
                      candidateId: op.eventId,
                      tenantId: ctx.tenantId,
                      score: 0.5,
                    },
                    { source: 'hireflow/matching', id: op.eventId },
                  ),
                  subject: `poison${op.badText}`,
                };
          return retrying(record, () => publish(op.topic, op.type, poisoned));
        }
        // A valid envelope whose data breaks the schema: poison, to be dead-lettered at once.
        return retrying(record, () =>
          publish(op.topic, op.type, {
            specversion: '1.0',
            id: op.eventId,
            source: op.topic === 'jobs-events' ? 'hireflow/jobs' : 'hireflow/matching',
            type: op.type,
            time: new Date().toISOString(),
            datacontenttype: 'application/json',
            data: { candidateId: 'not-a-uuid', poison: true },
          }),
        );
    }
  };

  const started = now();
  const inFlight = new Set<Promise<OpRecord>>();
  for (const [index, op] of ctx.plan.ops.entries()) {
    if (ctx.signal?.aborted) break;
    const due = started + (index / ctx.rate) * 1000;
    if (due > now()) await sleep(due - now());
    while (inFlight.size >= ctx.maxInFlight) await Promise.race(inFlight);
    const record: OpRecord = { index, kind: op.kind, startedAt: now(), attempts: 0 };
    records[index] = record;
    const running = execute(op, record)
      .catch((error: Error) => {
        record.ok = false;
        record.error = error.message.slice(0, 200);
      })
      .then(() => {
        record.endedAt = now();
        onOp(record);
        return record;
      });
    done.set(index, running);
    inFlight.add(running);
    void running.then(() => inFlight.delete(running));
    if (index > 0 && index % 1000 === 0) ctx.log(`workload: ${index} of ${ctx.plan.ops.length} sent`);
  }
  await Promise.all(inFlight);
}

/** One role of the small tenant and the people who fit it (docs/chaos.md, "Two tenants"). */
export interface SmallTenantRecord {
  n: number;
  /** When its first request was sent (ms, the run's clock: `now()`, as the SMTP sink's `acceptedAt`). */
  startedAt: number;
  ok: boolean;
  error?: string;
  postingId?: string;
  candidateIds: string[];
}

export interface SmallTenantContext {
  api: string;
  apiKey: string;
  /** Roles it posts, one every `everyMs`, each with `people` candidates who fit it. */
  postings: number;
  people: number;
  everyMs: number;
  opDeadlineMs: number;
  signal?: AbortSignal | undefined;
  log: (line: string) => void;
}

/**
 * The small tenant beside the big one: now and then it registers a few people
 * and posts a role that fits them and no other (words of its own), as a small customer does while a big one floods. The
 * checker measures each role from its first request to its match emails.
 */
/**
 * Six made-up words of the small tenant's role `n` (a fixed function of n):
 * as the plan's groups, a role's people fit it and no other role.
 */
export function smallTenantWords(n: number): string[] {
  const letters = 'bcdfghjklmnpqrstvwxz';
  const vowels = 'aeiouy';
  return Array.from({ length: 6 }, (_, w) => {
    const bytes = createHash('sha256').update(`chaos-small-${n}-${w}`).digest();
    let word = '';
    for (let i = 0; i < 4; i++)
      word += letters[bytes[2 * i]! % letters.length]! + vowels[bytes[2 * i + 1]! % vowels.length]!;
    return word;
  });
}

export async function runSmallTenant(ctx: SmallTenantContext, records: SmallTenantRecord[]): Promise<void> {
  const client = createHireflowClient({ baseUrl: ctx.api, apiKey: ctx.apiKey });
  const persist = async <T>(
    call: (signal: AbortSignal) => Promise<T>,
    deadline: number,
    seen: Set<string>,
  ): Promise<T> => {
    for (let tries = 0; ; tries++) {
      try {
        return await call(
          AbortSignal.timeout(Math.round(Math.max(1000, Math.min(10_000, deadline - now())))),
        );
      } catch (error) {
        seen.add(
          error instanceof HireflowProblem ? `${error.status} ${error.code}` : (error as Error).message,
        );
        if (!retryable(error) || now() + 500 > deadline || ctx.signal?.aborted) throw error;
        await sleep(Math.min(2000, 100 * 2 ** Math.min(tries, 5)));
      }
    }
  };
  const started = now();
  await Promise.all(
    Array.from({ length: ctx.postings }, async (_, n) => {
      const due = started + n * ctx.everyMs;
      if (due > now()) await sleep(due - now());
      if (ctx.signal?.aborted) return;
      const record: SmallTenantRecord = { n, startedAt: now(), ok: false, candidateIds: [] };
      records[n] = record;
      // Each request its own deadline, as an operation of the big tenant's: a role is three of them.
      const deadline = () => now() + ctx.opDeadlineMs;
      const seen = new Set<string>();
      const words = smallTenantWords(n);
      try {
        const people = await Promise.all(
          Array.from({ length: ctx.people }, (_, i) =>
            persist(
              (signal) =>
                client.candidates.register(
                  {
                    name: `Small ${n} ${i}`,
                    email: `small-${n}-${i}@chaos.test`,
                    headline: words.join(' '),
                    skills: words.slice(0, 3),
                    location: 'Remote',
                  },
                  { idempotencyKey: `small-candidate-${n}-${i}`, signal },
                ),
              deadline(),
              seen,
            ),
          ),
        );
        record.candidateIds = people.map((p) => p.id);
        const posted = await persist(
          (signal) =>
            client.jobs.post(
              {
                title: `Small role ${n} ${words[0]} ${words[1]}`,
                description: words.join(' '),
                skills: words.slice(0, 3),
                location: 'Remote',
                remote: true,
                contactEmail: `small-contact-${n}@chaos.test`,
              },
              { idempotencyKey: `small-posting-${n}`, signal },
            ),
          deadline(),
          seen,
        );
        record.postingId = posted.id;
        record.ok = true;
      } catch {
        record.error = [...seen].join('; ').slice(0, 300);
        ctx.log(`small tenant: role ${n} not posted: ${record.error}`);
      }
    }),
  );
}
