import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { createHireflowClient, type HireflowClient, HireflowProblem } from '@hireflow/client';
import { loadLauncherSettings, type RunningPlatform, startPlatform } from '@hireflow/launcher';
import { FREE_PORTS, percentile, waitFor } from '@hireflow/testing';
import { keyDigest, type SmtpCatcher, startSmtpCatcher } from '@hireflow/testing/smtp';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanUp, root } from './launcher.ts';

// Fair queues with real processes (docs/fairness.md, issue 29's acceptance):
// the whole system as `pnpm start` runs it (every service its own process),
// email accepted by a real SMTP server. Tenant B posts a role with 5 fitting
// candidates, first with tenant A idle, then while A imports
// FAIRNESS_E2E_CANDIDATES candidates (POST /v1/candidates:batch, 1,000 a
// call: the bulk lane) and posts FAIRNESS_E2E_ROLES roles. B's latency (its
// first request → its posting `matched`; → its 5 match emails accepted by
// SMTP) under A's flood is compared with B's latency with A idle, in this run.
// A must lose nothing and get no email twice.
//
// Sizes: the are 5,000 and 200; on the shared two-core machine (load
// 20+) A's requests alone took 104 s for 1,000 and 40, so the default is
// 1,000 and 40 (FAIRNESS_E2E_CANDIDATES=5000 FAIRNESS_E2E_ROLES=200 for the
// issue's). No absolute time is asserted, only ratios with slack; the figures
// and the queues' depths are logged.
//
// What holds (docs/fairness.md, "Measured end to end"): B's posting is
// `matched`, and its emails are accepted, within a bound of its time with A
// idle, before A's backlog drains. A's import waits in the bulk lane's inbox
// queues (`<service>-inbox-bulk`), not in front of B's events in the
// interactive ones, and A's welcome emails in the bulk lane of the email queue.
const CANDIDATES = Number(process.env.FAIRNESS_E2E_CANDIDATES ?? 1000);
const ROLES = Number(process.env.FAIRNESS_E2E_ROLES ?? 40);
/**
 * B's time to `matched` under A's flood, at most this multiple of its time
 * with A idle, or the idle time plus MATCHED_SLACK_MS when that is more (the
 * issue's absolute target is 2 s; one quick idle run of 0.3 s made 5× a
 * bound of 1.5 s on a CI machine at load 9: docs/fairness.md).
 */
const MAX_RATIO = Number(process.env.FAIRNESS_E2E_MAX_RATIO ?? 5);
const MATCHED_SLACK_MS = Number(process.env.FAIRNESS_E2E_MATCHED_SLACK_MS ?? 2000);
/**
 * B's time to its 5 emails accepted under A's flood, at most this multiple of
 * its time with A idle, or the idle time plus EMAIL_SLACK_MS when that is more
 * (a loaded two-core machine: one idle run of 1 s is no yardstick for a
 * busy one). Before the inboxes per lane: 8.7–16× (docs/fairness.md).
 */
const MAX_EMAIL_RATIO = Number(process.env.FAIRNESS_E2E_MAX_EMAIL_RATIO ?? 3);
const EMAIL_SLACK_MS = Number(process.env.FAIRNESS_E2E_EMAIL_SLACK_MS ?? 5000);
const BATCH = 1000;

const instance = `fair${randomBytes(3).toString('hex')}`;
const stateDir = `.local/test-${instance}`;
const tag = randomBytes(3).toString('hex');
const now = () => performance.timeOrigin + performance.now();

// B's role and five people who fit it; A's people and roles fit nothing of each other.
const bRole = (label: string) => ({
  title: `Backend Engineer ${label} ${tag}`,
  description:
    'Build event-driven services in TypeScript on Node.js with PostgreSQL and Redis, deployed on AWS with Docker.',
  skills: ['TypeScript', 'Node.js', 'PostgreSQL', 'Redis', 'AWS', 'Docker'],
  location: 'Berlin',
  remote: true,
  contactEmail: `b-contact-${label}-${tag}@example.test`,
});
const bPeople = (label: string) =>
  Array.from({ length: 5 }, (_, i) => ({
    name: `B Person ${label} ${i}`,
    email: `b-${label}-${i}-${tag}@example.test`,
    headline: 'Backend engineer: TypeScript and Node.js services on PostgreSQL and Redis, AWS and Docker',
    skills: ['TypeScript', 'Node.js', 'PostgreSQL', 'Redis', 'AWS'],
    location: 'Berlin',
  }));
const aPerson = (n: number) => ({
  key: `a-${tag}-${n}`,
  name: `A Person ${n}`,
  email: `a-${n}-${tag}@example.test`,
  headline: 'Pastry chef: croissants, sourdough and viennoiserie in a busy bakery',
  skills: ['Baking', 'Pastry', 'Sourdough'],
  location: 'Lyon',
});
const aRole = (n: number) => ({
  title: `Forklift operator ${n} ${tag}`,
  description: 'Operate forklifts in a cold-storage warehouse: pallets, inventory counts, loading docks.',
  skills: ['Forklift', 'Warehouse', 'Logistics'],
  location: 'Hamburg',
  remote: false,
  contactEmail: `a-contact-${n}-${tag}@example.test`,
});

/** Retries what a loaded system may refuse for now (503 shedding, 429, 5xx, a dropped connection). */
async function persist<T>(what: string, call: () => Promise<T>, deadlineMs = 120_000): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const retryable = !(error instanceof HireflowProblem) || error.status >= 500 || error.status === 429;
      if (!retryable || Date.now() > deadline) throw new Error(`${what}: ${String(error)}`, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, Math.min(2000, 100 * 2 ** attempt)));
    }
  }
}

async function inParallel<T>(items: T[], width: number, each: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await each(items[next++]!);
    }),
  );
}

interface BRun {
  latencyMs: number;
  matchedMs: number;
  doneAt: number;
  /** From `matched` to the last of B's 5 match intents recorded by notifications (its inbox's part), ms. */
  recordedMs: number;
  /** Where B's time to `matched` went (ms from B's first request), for the log. */
  phases: Record<string, number>;
}

/** A row's time in a service's database, ms since the epoch. */
async function serviceTimes(
  service: string,
  sql: string,
  params: unknown[],
): Promise<Record<string, number>> {
  const client = new pg.Client({
    connectionString: `postgres://postgres@127.0.0.1:5432/hireflow_${instance}_${service}`,
  });
  await client.connect();
  try {
    const { rows } = await client.query<Record<string, Date | null>>(sql, params);
    return Object.fromEntries(
      Object.entries(rows[0] ?? {}).map(([k, v]) => [k, v ? v.getTime() : Number.NaN]),
    );
  } finally {
    await client.end();
  }
}

/**
 * B's path to `matched`, from the databases' own clocks: its posting's
 * `job.posted.v1` written and published by jobs' relay, matching's
 * `job.matched.v1` written (the computation done) and published.
 */
async function matchedPhases(postingId: string, started: number, postedAt: number) {
  const [jobs, matching] = await Promise.all([
    serviceTimes(
      'jobs',
      "SELECT min(created_at) AS written, min(sent_at) AS published FROM outbox WHERE type = 'job.posted.v1' AND payload->'data'->>'jobId' = $1",
      [postingId],
    ),
    serviceTimes(
      'matching',
      "SELECT min(created_at) AS written, min(sent_at) AS published FROM outbox WHERE type = 'job.matched.v1' AND payload->'data'->>'jobId' = $1",
      [postingId],
    ),
  ]);
  const since = (at: number | undefined) => Math.round((at ?? Number.NaN) - started);
  return {
    'posting answered': since(postedAt),
    'job.posted written': since(jobs.written),
    'job.posted published': since(jobs.published),
    'job.matched written': since(matching.written),
    'job.matched published': since(matching.published),
  };
}

/**
 * When notifications recorded the intents (`notification_log.created_at`):
 * splits B's wait after `matched` into its inbox's part (the match event
 * received, its candidate and posting known, the intent written) and the
 * email queue's (the intent written → SMTP accept).
 */
async function recordedAt(keys: string[]): Promise<number> {
  const { at } = await serviceTimes(
    'notifications',
    'SELECT max(created_at) AS at FROM notification_log WHERE key = ANY($1)',
    [keys],
  );
  return at ?? Number.NaN;
}

/** Tenant B registers 5 people and posts a role; until the posting is `matched` and its 5 match emails are accepted. */
async function runB(client: HireflowClient, smtp: SmtpCatcher, label: string): Promise<BRun> {
  const started = now();
  const people = await Promise.all(
    bPeople(label).map((p) => persist('register B', () => client.candidates.register(p))),
  );
  const posting = await persist('post B', () =>
    client.jobs.post(bRole(label), { idempotencyKey: `b-${label}-${tag}` }),
  );
  const postedAt = now();
  for await (const change of client.jobs.events(posting.id, { signal: AbortSignal.timeout(150_000) })) {
    if (change.status === 'matched') break;
  }
  const matchedMs = now() - started;
  const keys = new Set(people.map((p) => keyDigest(`match-email:${posting.id}:${p.id}`)));
  const mails = await waitFor(
    () => {
      const found = smtp.emails.filter((e) => e.key !== undefined && keys.has(e.key));
      return found.length >= keys.size ? found : undefined;
    },
    { timeoutMs: 150_000, intervalMs: 20, message: `B's match emails (${label})` },
  );
  const doneAt = Math.max(...mails.map((m) => m.acceptedAt), started + matchedMs);
  expect(await client.jobs.get(posting.id)).toMatchObject({ status: 'matched', matchCount: 5 });
  const recorded = await recordedAt(people.map((p) => `match-email:${posting.id}:${p.id}`));
  return {
    latencyMs: doneAt - started,
    matchedMs,
    doneAt,
    recordedMs: recorded - (started + matchedMs),
    phases: await matchedPhases(posting.id, started, postedAt),
  };
}

describe('fair queues: one tenant flooding does not delay another (real processes)', () => {
  let platform: RunningPlatform | undefined;
  let smtp: SmtpCatcher | undefined;
  const env: Record<string, string | undefined> = {
    ...process.env,
    HIREFLOW_INSTANCE: instance,
    HIREFLOW_STATE_DIR: stateDir,
    ...FREE_PORTS,
    LOG_LEVEL: 'warn',
    // One process per service, as the other end-to-end tests (the flood must not buy workers).
    HIREFLOW_SCALING: 'off',
    // Traces cost CPU the two cores do not have to spare; the libraries' tests cover their context.
    OTEL_SDK_DISABLED: 'true',
    // A sends far more than a tenant's daily quota, every posting names an address of its own.
    TENANT_DAILY_EMAIL_QUOTA: '10000000',
    EMAILS_PER_ADDRESS_PER_DAY: '10000000',
    CONTACT_CONFIRMATION_REQUIRED: 'false',
    RATE_LIMIT_MAX: '1000000',
    EMAIL_RATE_MAX: '500',
  };
  const settings = loadLauncherSettings(env);

  afterAll(async () => {
    await platform?.stop();
    await smtp?.close();
    await cleanUp(undefined, instance, stateDir);
  }, 90_000);

  it(`B's posting is matched and emailed while A's ${CANDIDATES} candidates and ${ROLES} roles wait`, async () => {
    smtp = await startSmtpCatcher({ parse: false });
    const lines: string[] = [];
    platform = await startPlatform(
      { ...settings, SMTP_URL: smtp.url },
      {
        root,
        env: { ...env, SMTP_URL: smtp.url },
        write: (line) => void (lines.push(line) > 200 && lines.shift()),
        color: false,
        readyTimeoutMs: 150_000,
      },
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${lines.join('\n')}`);
    });
    const a = createHireflowClient({ baseUrl: platform.api, apiKey: platform.demo.key });
    // Tenant B: a small tenant of its own for each run, so a run's role fits only its own 5 people.
    const tenantB = async (label: string) => {
      const key = await platform!.createApiKey(`fair-b-${label}-${tag}`, `b-${label}-${tag}@example.test`);
      return createHireflowClient({ baseUrl: platform!.api, apiKey: key.key });
    };
    const bFlood = await tenantB('flood');

    // With A idle (twice: the first pays for cold code paths and connections).
    await runB(await tenantB('warm'), smtp, 'warm');
    const idle = await runB(await tenantB('idle'), smtp, 'idle');

    // A's flood: the import (bulk lane, 1,000 a call) and the roles, sent side by side; B starts
    // once A's first batch is in, while the rest of A's requests keep coming.
    const sampler = startSampler(platform, smtp);
    const floodStart = now();
    const aPeople = Array.from({ length: CANDIDATES }, (_, n) => aPerson(n));
    const aIds: string[] = [];
    const aPostings: string[] = [];
    let firstBatchIn: () => void = () => undefined;
    const firstBatch = new Promise<void>((resolve) => {
      firstBatchIn = resolve;
    });
    const importing = (async () => {
      for (let i = 0; i < CANDIDATES; i += BATCH) {
        const items = aPeople.slice(i, i + BATCH);
        const body = await persist('A batch', async () => {
          const res = await fetch(`${platform!.api}/v1/candidates:batch`, {
            method: 'POST',
            headers: { authorization: `Bearer ${platform!.demo.key}`, 'content-type': 'application/json' },
            body: JSON.stringify({ items }),
          });
          if (res.status !== 202) throw new Error(`batch answered ${res.status}: ${await res.text()}`);
          return (await res.json()) as { items: { id: string | null; status: string }[] };
        });
        expect(body.items.map((r) => r.status)).toEqual(items.map(() => 'registered'));
        aIds.push(...body.items.map((r) => r.id!));
        firstBatchIn();
      }
    })();
    const posting = inParallel(
      Array.from({ length: ROLES }, (_, n) => n),
      4,
      async (n) => {
        const posted = await persist('A role', () =>
          a.jobs.post(aRole(n), { idempotencyKey: `a-${n}-${tag}` }),
        );
        aPostings.push(posted.id);
      },
    );
    const flood = Promise.all([importing, posting]);
    flood.catch(() => undefined);
    await Promise.race([firstBatch, flood]);

    const flooded = await runB(bFlood, smtp, 'flood');
    await flood;
    const floodSent = now() - floodStart;
    const aKeys = new Set([
      ...aIds.map((id) => keyDigest(`welcome-email:${id}`)),
      ...aPostings.map((id) => keyDigest(`job-matched:${id}`)),
    ]);
    const aSentBy = (at: number) =>
      smtp!.emails.filter((e) => e.key && aKeys.has(e.key) && e.acceptedAt <= at).length;

    // A drains: every email once, every posting matched.
    const aMails = await waitFor(
      () => {
        const mine = smtp!.emails.filter((e) => e.key && aKeys.has(e.key));
        return new Set(mine.map((e) => e.key)).size >= aKeys.size ? mine : undefined;
      },
      { timeoutMs: 600_000, intervalMs: 500, message: `A's ${aKeys.size} emails` },
    );
    console.log(
      `fairness e2e queues (s since A's first request: notifications inbox interactive/bulk, email queue; matching inbox interactive/bulk, match queue; emails):\n${sampler.stop().join('\n')}`,
    );
    const aDrainedAt = Math.max(...aMails.map((m) => m.acceptedAt));
    const unmatched: string[] = [];
    await inParallel(aPostings, 8, async (id) => {
      const job = await persist('get A role', () => a.jobs.get(id));
      if (job.status !== 'matched') unmatched.push(id);
    });

    const figures = {
      load: loadavg()
        .map((l) => l.toFixed(1))
        .join(' '),
      candidates: CANDIDATES,
      roles: ROLES,
      'A requests took ms': Math.round(floodSent),
      'B idle ms (matched, emailed)': [Math.round(idle.matchedMs), Math.round(idle.latencyMs)],
      'B under flood ms (matched, emailed)': [Math.round(flooded.matchedMs), Math.round(flooded.latencyMs)],
      // After `matched`: until notifications recorded the 5 intents (inbox), then until SMTP accepted them (email queue).
      'B idle ms after matched (recorded, emailed)': [
        Math.round(idle.recordedMs),
        Math.round(idle.latencyMs - idle.matchedMs),
      ],
      'B under flood ms after matched (recorded, emailed)': [
        Math.round(flooded.recordedMs),
        Math.round(flooded.latencyMs - flooded.matchedMs),
      ],
      // B's path to `matched` (ms from its first request), idle and under the flood.
      'B idle phases': idle.phases,
      'B under flood phases': flooded.phases,
      'ratio matched flood ÷ idle': Number((flooded.matchedMs / idle.matchedMs).toFixed(2)),
      'ratio emailed flood ÷ idle': Number((flooded.latencyMs / idle.latencyMs).toFixed(2)),
      'A emails sent before B started': aSentBy(flooded.doneAt - flooded.latencyMs),
      'A emails sent when B was matched': aSentBy(flooded.doneAt - flooded.latencyMs + flooded.matchedMs),
      'A emails sent when B was emailed': aSentBy(flooded.doneAt),
      'A emails in all': aKeys.size,
      'A drained after B started, ms': Math.round(aDrainedAt - (flooded.doneAt - flooded.latencyMs)),
      'A email spread p50/p99 ms': [50, 99].map((q) =>
        Math.round(
          percentile(
            aMails.map((m) => m.acceptedAt - floodStart),
            q,
          ),
        ),
      ),
    };
    console.log(`fairness e2e: ${JSON.stringify(figures)}`);

    // A loses nothing and gets nothing twice: every email once (one Message-ID each), every posting matched.
    expect(unmatched).toEqual([]);
    expect(aMails.length).toBe(aKeys.size);
    const ids = smtp.emails.map((e) => e.messageId);
    expect(new Set(ids).size).toBe(ids.length);
    // B: matched within the bound of its time with A idle, while A's backlog still waited
    // (runB checked its 5 match emails arrived; the Message-IDs above, once each).
    expect(
      flooded.matchedMs,
      `B matched under the flood; its phases ${JSON.stringify(flooded.phases)}, idle ${JSON.stringify(idle.phases)}`,
    ).toBeLessThanOrEqual(Math.max(MAX_RATIO * idle.matchedMs, idle.matchedMs + MATCHED_SLACK_MS));
    expect(flooded.doneAt - flooded.latencyMs + flooded.matchedMs).toBeLessThan(aDrainedAt);
    // B's emails: accepted within the bound of its time with A idle, and before A's backlog
    // drained (on a first-in-first-out inbox they came after every one of A's).
    expect(flooded.latencyMs).toBeLessThanOrEqual(
      Math.max(MAX_EMAIL_RATIO * idle.latencyMs, idle.latencyMs + EMAIL_SLACK_MS),
    );
    expect(aSentBy(flooded.doneAt)).toBeLessThan(aKeys.size);
  }, 900_000);
});

/** Every 2 s: the inboxes' visible messages (SQS, interactive/bulk) and the BullMQ queues' waiting tasks of notifications and matching. */
function startSampler(platform: RunningPlatform, smtp: SmtpCatcher) {
  const redis = new Redis({ host: '127.0.0.1', port: 6379, lazyConnect: true, maxRetriesPerRequest: 1 });
  const started = now();
  const rows: string[] = [];
  const sqs = async (target: string, body: object) => {
    const res = await fetch(platform.awsEndpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `AmazonSQS.${target}` },
      body: JSON.stringify(body),
    });
    return (await res.json()) as Record<string, unknown>;
  };
  const depth = async (queue: string) => {
    try {
      const { QueueUrl } = await sqs('GetQueueUrl', { QueueName: `${instance}-${queue}` });
      const { Attributes } = (await sqs('GetQueueAttributes', {
        QueueUrl,
        AttributeNames: ['ApproximateNumberOfMessages'],
      })) as { Attributes?: Record<string, string> };
      return Attributes?.ApproximateNumberOfMessages ?? '?';
    } catch {
      return '?';
    }
  };
  const waiting = async (service: string, queue: string) => {
    const key = `hf-${instance}:${service}:${queue}`;
    const [prioritized, wait] = await Promise.all([
      redis.zcard(`${key}:prioritized`),
      redis.llen(`${key}:wait`),
    ]);
    return prioritized + wait;
  };
  const timer = setInterval(() => {
    void Promise.all([
      depth('notifications-inbox'),
      depth('notifications-inbox-bulk'),
      waiting('notifications', 'email'),
      depth('matching-inbox'),
      depth('matching-inbox-bulk'),
      waiting('matching', 'match'),
    ]).then(
      ([ni, nb, email, mi, mb, match]) =>
        rows.push(
          `${((now() - started) / 1000).toFixed(0)}\t${ni}/${nb}\t${email}\t${mi}/${mb}\t${match}\t${smtp.emails.length}`,
        ),
      () => undefined,
    );
  }, 2000);
  return {
    stop() {
      clearInterval(timer);
      redis.disconnect();
      return rows;
    },
  };
}
