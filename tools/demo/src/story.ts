// The demo's story: candidates register, a role is posted with its logo, the
// posting is matched, the fitting candidates and the recruiter are emailed.
// Everything goes through the public API with its client (@hireflow/client),
// as an integrator would; the mail catcher and the trace viewer are read where
// a person would read them.
import { randomUUID } from 'node:crypto';
import { type HireflowClient, HireflowProblem, type Match } from '@hireflow/client';
import { DemoError, poll } from './api.ts';
import { type DemoCandidate, demoCast } from './cast.ts';
import { demoLogo } from './logo.ts';
import { awaitTrace, renderStory, type StoryTrace } from './traces.ts';
import { type DemoEndpoint, registerEndpoint, showWebhooks } from './webhooks.ts';

export interface DemoTarget {
  api: HireflowClient;
  /** The public API's base URL (jobs and media behind one address). */
  baseUrl: string;
  /** The mail catcher's page, when `pnpm start` runs one. */
  mail: string | undefined;
  /** The local webhook receiver, when `pnpm start` runs one. */
  webhooks: string | undefined;
  /** Where trace links point and traces are read (the local viewer or a Jaeger). */
  traces: string | undefined;
  tag: string;
  color: boolean;
  /** How long each wait may take (the SSE stream, matches, emails, variants, traces). */
  timeoutMs: number;
}

interface Accepted {
  id: string;
  traceId: string | null;
}
interface CaughtMail {
  id: string;
  to: string[];
  subject: string;
}

export async function runDemo(target: DemoTarget, say: (line: string) => void): Promise<void> {
  const { api } = target;
  const { role, candidates } = demoCast(target.tag);
  const stories: StoryTrace[] = [];
  const traceLink = (accepted: Accepted) =>
    accepted.traceId
      ? `trace ${target.traces ? `${target.traces}/trace/` : ''}${accepted.traceId}`
      : 'no trace';

  say('1. Candidates register (POST /v1/candidates → 202)');
  const registered = new Map<string, DemoCandidate>();
  for (const candidate of candidates) {
    const accepted = await api.candidates.register(candidate, { idempotencyKey: randomUUID() });
    registered.set(accepted.id, candidate);
    say(`   ${candidate.name.padEnd(18)} candidate ${accepted.id}  ${traceLink(accepted)}`);
    if (accepted.traceId) {
      stories.push({
        label: `POST /v1/candidates (${candidate.name})`,
        traceId: accepted.traceId,
        expected: [
          { service: 'jobs', name: 'POST /v1/candidates' },
          { service: 'matching', name: 'match candidate' },
          { service: 'notifications', name: 'smtp send' },
        ],
      });
    }
  }

  let endpoint: DemoEndpoint | undefined;
  if (target.webhooks) {
    say(
      '2. A webhook endpoint on the local receiver (POST /v1/webhooks → 201: posting.matched, upload.ready)',
    );
    endpoint = await registerEndpoint(api, target.webhooks, target.tag);
    say(
      `   endpoint ${endpoint.id}  ${endpoint.receiver}${endpoint.path}  (its secret handed to the receiver)`,
    );
  } else {
    say('2. No local webhook receiver runs: no webhook endpoint this time');
  }

  say('3. A role is posted (POST /v1/jobs → 202)');
  const posted = await api.jobs.post(role, { idempotencyKey: randomUUID() });
  say(`   ${role.title}  job ${posted.id}  ${traceLink(posted)}`);

  say('4. Its logo is uploaded (POST /v1/uploads → 202)');
  const uploaded = await uploadOnceMediaKnowsTheKey(target, posted.id);
  say(`   logo.png  upload ${uploaded.id}  ${traceLink(uploaded)}`);

  const eventsPath = `/v1/jobs/${posted.id}/events`;
  say(`5. Following GET ${eventsPath} (server-sent events) until the posting is matched`);
  const started = Date.now();
  const statuses = await followUntilMatched(target, posted.id);
  say(
    `   ${statuses.map((s) => s.status).join(' → ')} after ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );

  const posting = await api.jobs.get(posted.id);
  const matchCount = posting.matchCount ?? 0;
  const matches = await waitForMatches(target, posted.id, matchCount);
  say('');
  say(`Matches of job ${posted.id} (best first; GET /v1/jobs/${posted.id}/matches):`);
  for (const match of matches) {
    say(
      `   ${match.score.toFixed(3)}  ${(match.candidate?.name ?? '?').padEnd(18)} candidate ${match.candidateId}`,
    );
  }
  if (matches.length === 0) say('   none above the threshold');
  if (posted.traceId) {
    stories.push({
      label: 'POST /v1/jobs',
      traceId: posted.traceId,
      expected: [
        { service: 'matching', name: 'match posting' },
        // One email per match and the recruiter's summary.
        { service: 'notifications', name: 'smtp send', count: matchCount + 1 },
        ...(endpoint ? [{ service: 'jobs', name: 'webhook attempt' }] : []),
      ],
    });
  }

  if (matchCount > 0) await confirmContact(target, say, role.contactEmail);

  say('');
  await showEmails(target, say, {
    welcome: candidates.map((c) => c.email),
    match: matches.map((m) => registered.get(m.candidateId)?.email).filter((e): e is string => !!e),
    summary: matchCount > 0 ? [role.contactEmail] : [],
    title: role.title,
  });

  say('');
  await showLogo(target, say, posted.id, uploaded.id);
  if (uploaded.traceId) {
    stories.push({
      label: 'POST /v1/uploads',
      traceId: uploaded.traceId,
      expected: [
        { service: 'media', name: 'resize' },
        { service: 'jobs', name: 'process ' },
        ...(endpoint ? [{ service: 'jobs', name: 'webhook attempt' }] : []),
      ],
    });
  }

  if (endpoint) {
    say('');
    await showWebhooks(
      endpoint,
      { jobId: posted.id, uploadId: uploaded.id },
      { traces: target.traces, timeoutMs: target.timeoutMs },
      say,
    );
  }

  say('');
  await showTraces(target, say, stories);
}

/**
 * media authenticates with its projection of jobs' keys, fed by
 * apikey.issued.v1: a key issued a moment ago may not have reached it yet.
 * The same Idempotency-Key on every try: one upload, however many tries.
 * Each 401 counts against this address (the front door's failed-credential
 * limit, docs/security.md API2), so the tries back off, up to 2 s apart,
 * and a 429 from that limit is waited out like a 401.
 */
async function uploadOnceMediaKnowsTheKey(target: DemoTarget, jobId: string): Promise<Accepted> {
  const deadline = Date.now() + target.timeoutMs;
  const idempotencyKey = randomUUID();
  let waitMs = 250;
  while (true) {
    try {
      return await target.api.uploads.create(demoLogo(), {
        idempotencyKey,
        filename: 'logo.png',
        contentType: 'image/png',
        owner: { type: 'job', id: jobId },
      });
    } catch (error) {
      const unknownYet = error instanceof HireflowProblem && (error.status === 401 || error.status === 429);
      if (!unknownYet || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      waitMs = Math.min(waitMs * 2, 2000);
    }
  }
}

/** The posting's statuses from its event stream, up to `matched`. */
async function followUntilMatched(target: DemoTarget, jobId: string): Promise<{ status: string }[]> {
  const seen: { status: string }[] = [];
  try {
    for await (const change of target.api.jobs.events(jobId, {
      signal: AbortSignal.timeout(target.timeoutMs),
    })) {
      seen.push(change);
      if (change.status === 'matched') return seen;
    }
  } catch (error) {
    if ((error as Error).name !== 'TimeoutError') throw error;
  }
  throw new DemoError(
    `GET /v1/jobs/${jobId}/events did not say matched within ${target.timeoutMs / 1000} s (saw ${seen.map((s) => s.status).join(' → ') || 'nothing'})`,
  );
}

async function waitForMatches(target: DemoTarget, jobId: string, count: number): Promise<Match[]> {
  // The read model is fed by match.found.v1, which may trail job.matched.v1.
  const matches = await poll(async () => {
    const page = await target.api.jobs.matches(jobId);
    return page.items.length >= count && page.items.every((m) => m.candidate) ? page.items : undefined;
  }, target.timeoutMs);
  if (!matches) throw new DemoError(`job ${jobId} has fewer than its ${count} matches in its read model`);
  return matches;
}

/**
 * The role names a contact address of its own, not the tenant's: its summary
 * waits until the address confirms (docs/notifications.md). The demo plays
 * the recruiter: it opens the confirmation email in the mail catcher and
 * presses the button of its link (a POST through the public base URL).
 */
async function confirmContact(
  target: DemoTarget,
  say: (line: string) => void,
  address: string,
): Promise<void> {
  if (!target.mail) {
    say(`   the summary to ${address} waits until the address confirms (the link of its confirmation email)`);
    return;
  }
  const mail = await poll(async () => {
    const all = (await (await fetch(`${target.mail}/api/messages`)).json()) as CaughtMail[];
    return all.find((m) => m.to.includes(address) && m.subject.startsWith('Confirm this address'));
  }, target.timeoutMs);
  if (!mail) {
    say(`   no confirmation email to ${address} in the mail catcher yet: its summary waits`);
    return;
  }
  const page = await (await fetch(`${target.mail}/messages/${mail.id}`)).text();
  const link = /\/v1\/contacts\/confirm\?token=[A-Za-z0-9_-]+/.exec(page)?.[0];
  if (!link) throw new Error('the confirmation email carries no link');
  const confirmed = await fetch(`${target.baseUrl}${link}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: '',
  });
  if (!confirmed.ok) throw new Error(`confirming the contact address answered ${confirmed.status}`);
  say(`   the recruiter confirms ${address} (the link of its confirmation email: POST /v1/contacts/confirm)`);
}

async function showEmails(
  target: DemoTarget,
  say: (line: string) => void,
  to: { welcome: string[]; match: string[]; summary: string[]; title: string },
): Promise<void> {
  if (!target.mail) {
    say('Emails: sent to SMTP_URL (no local mail catcher runs); the notification log has them.');
    return;
  }
  const wanted = [
    ...to.welcome.map((address) => ({
      kind: 'welcome',
      address,
      is: (s: string) => s.startsWith('Welcome'),
    })),
    ...to.match.map((address) => ({
      kind: 'match',
      address,
      is: (s: string) => s === `New match: ${to.title}`,
    })),
    ...to.summary.map((address) => ({ kind: 'summary', address, is: (s: string) => s.endsWith(to.title) })),
  ];
  const pick = (all: CaughtMail[]) =>
    wanted.map((w) => ({ ...w, mail: all.find((m) => m.to.includes(w.address) && w.is(m.subject)) }));
  let found = pick([]);
  await poll(async () => {
    const response = await fetch(`${target.mail}/api/messages`);
    found = pick((await response.json()) as CaughtMail[]);
    return found.every((f) => f.mail) ? true : undefined;
  }, target.timeoutMs);
  say(`Emails (the mail catcher, ${target.mail}):`);
  for (const { kind, address, mail } of found) {
    say(
      mail
        ? `   ${kind.padEnd(8)} to ${address.padEnd(44)} "${mail.subject}"  ${target.mail}/messages/${mail.id}`
        : `   ${kind.padEnd(8)} to ${address.padEnd(44)} not in the mail catcher yet`,
    );
  }
}

async function showLogo(
  target: DemoTarget,
  say: (line: string) => void,
  jobId: string,
  uploadId: string,
): Promise<void> {
  const upload = await poll(async () => {
    const view = await target.api.uploads.get(uploadId);
    return view.status === 'pending' ? undefined : view;
  }, target.timeoutMs);
  if (!upload) throw new DemoError(`upload ${uploadId} was still pending after ${target.timeoutMs / 1000} s`);
  if (upload.status !== 'ready') throw new DemoError(`upload ${uploadId} ${upload.status}: ${upload.reason}`);
  say(`Logo variants (GET /v1/uploads/${uploadId}: ready):`);
  for (const variant of upload.variants) {
    // Served through the running API (MEDIA_PUBLIC_URL may name another host).
    const url = new URL(new URL(variant.url).pathname, target.baseUrl).toString();
    const response = await fetch(url);
    const bytes = (await response.arrayBuffer()).byteLength;
    const served = response.ok ? `${(bytes / 1024).toFixed(1)} KiB` : `answered ${response.status}`;
    say(
      `   ${variant.name.padEnd(8)} ${`${variant.width}×${variant.height}`.padEnd(9)} ${variant.contentType.padEnd(10)} ${served.padEnd(9)} ${url}`,
    );
  }
  const shown = await poll(async () => {
    const posting = await target.api.jobs.get(jobId);
    return posting.logo?.uploadId === uploadId ? true : undefined;
  }, target.timeoutMs);
  say(
    shown
      ? `   the posting shows it as its logo (media.processed.v1 reached jobs)`
      : '   the posting does not show it yet',
  );
}

async function showTraces(target: DemoTarget, say: (line: string) => void, stories: StoryTrace[]) {
  say('Traces, one per 202 (the hops and the work; every span: pnpm trace <traceId>):');
  if (!target.traces) {
    for (const story of stories) say(`   ${story.label}  trace ${story.traceId}`);
    say('   (traces go to OTEL_EXPORTER_OTLP_ENDPOINT; set JAEGER_QUERY_URL to read them here)');
    return;
  }
  const results = await Promise.all(
    stories.map((story) => awaitTrace(target.traces!, story, target.timeoutMs)),
  );
  stories.forEach((story, i) => {
    const { trace, missing } = results[i]!;
    say('');
    say(`${story.label}  ${target.traces}/trace/${story.traceId}`);
    if (!trace) {
      say('   not in the trace viewer (yet): spans are exported in batches; try pnpm trace later');
      return;
    }
    for (const line of renderStory(trace, target.color)) say(`   ${line}`);
    if (missing.length > 0) {
      say(`   (still arriving: ${missing.map((m) => `${m.service} ${m.name}`).join(', ')})`);
    }
  });
}
