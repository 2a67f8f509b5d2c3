import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createHireflowClient, type HireflowClient } from '@hireflow/client';
import { demoCast } from '@hireflow/demo';
import { waitFor } from '@hireflow/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { adminAuth, cleanUp, type Launcher, launch, printedUrls, root } from './launcher.ts';

// The job board's main story with real processes: the launcher runs the four
// services, the emulator and the mail catcher; everything goes through the
// public API, and the emails are read where a person would read them.

const instance = `e2e${randomBytes(3).toString('hex')}`;
const stateDir = `.local/test-${instance}`;
const tag = randomBytes(4).toString('hex');

// The demo's cast (`pnpm demo`): a role, three candidates who fit it and one who
// does not, plus a frontend developer whose skills overlap the role's only in part.
const cast = demoCast(tag);
const role = cast.role;
// Best first: the score separates them (0.76, 0.74, 0.63 against 0.25 and 0.01).
const fitting = cast.candidates.slice(0, 3);
const unfitting = [
  {
    name: 'Frank Gilbreth',
    email: `frank.gilbreth.${tag}@example.test`,
    headline: 'Frontend developer: React and TypeScript single-page apps, design systems',
    skills: ['TypeScript', 'React', 'CSS', 'Storybook'],
    location: 'Berlin',
  },
  ...cast.candidates.slice(3),
];
const emailOf = (name: string) => [...fitting, ...unfitting].find((p) => p.name === name)!.email;

/** Follows the posting's event stream until it says `matched`; returns the statuses seen. */
async function followUntilMatched(client: HireflowClient, postingId: string): Promise<string[]> {
  const statuses: string[] = [];
  for await (const change of client.jobs.events(postingId, { signal: AbortSignal.timeout(60_000) })) {
    statuses.push(change.status);
    if (change.status === 'matched') break;
  }
  return statuses;
}

describe('post a role, matching candidates are told, the recruiter gets a summary', () => {
  let launcher: Launcher | undefined;
  afterAll(() => cleanUp(launcher, instance, stateDir));

  it('runs the whole story through the public API with real processes', async () => {
    launcher = launch(instance, stateDir, { LOG_LEVEL: 'warn' });
    await launcher.waitForLine((l) => l.startsWith('Ctrl-C stops everything'), 120_000);
    const { api, adminUrls, mailUi } = printedUrls(launcher.lines);
    const demo = JSON.parse(await readFile(join(root, stateDir, instance, 'demo-api-key.json'), 'utf8'));
    // The typed client at the one base URL, as a consumer would.
    const client = createHireflowClient({ baseUrl: api!, apiKey: demo.key });

    const ids = new Map<string, string>();
    for (const person of [...fitting, ...unfitting]) {
      const registered = await client.candidates.register({
        ...person,
        email: emailOf(person.name),
        location: 'Berlin',
      });
      expect(registered.created).toBe(true);
      ids.set(person.name, registered.id);
    }
    const { id: postingId } = await client.jobs.post(role, { idempotencyKey: `e2e-${tag}` });
    const statuses = await followUntilMatched(client, postingId);
    // processing first, unless matching was done before the stream opened
    expect(statuses.at(-1)).toBe('matched');
    expect(statuses.filter((s) => s !== 'processing')).toEqual(['matched']);

    expect(await client.jobs.get(postingId)).toMatchObject({ status: 'matched', matchCount: 3 });
    // The read model is fed by match.found.v1 events, which may trail job.matched.v1.
    const matches = await waitFor(async () => {
      const page = await client.jobs.matches(postingId);
      return page.items.length >= 3 ? page.items : undefined;
    });
    expect(matches.map((m) => m.candidate?.name)).toEqual(fitting.map((p) => p.name));
    expect(matches.map((m) => m.candidateId)).toEqual(fitting.map((p) => ids.get(p.name)));
    expect(matches.map((m) => m.score)).toEqual(matches.map((m) => m.score).sort((a, b) => b - a));
    const internal = (await (
      await fetch(`${adminUrls.matching}/internal/matches?postingId=${postingId}`, {
        headers: await adminAuth(instance, stateDir),
      })
    ).json()) as {
      items: { candidateId: string }[];
    };
    expect(internal.items.map((m) => m.candidateId)).toEqual(matches.map((m) => m.candidateId));

    // The role's contact is not the tenant's own: it gets a confirmation email first, and
    // the summary once the recruiter pressed the button of its link (through the public base URL).
    type Caught = { id: string; to: string[]; subject: string };
    const confirmation = await waitFor(
      async () => {
        const all = (await (await fetch(`${mailUi}/api/messages`)).json()) as Caught[];
        return all.find(
          (m) => m.to.includes(role.contactEmail) && m.subject.startsWith('Confirm this address'),
        );
      },
      { timeoutMs: 30_000, message: 'the confirmation email' },
    );
    const page = await (await fetch(`${mailUi}/messages/${confirmation.id}`)).text();
    const link = /\/v1\/contacts\/confirm\?token=[A-Za-z0-9_-]+/.exec(page)![0];
    const confirmed = await fetch(`${api}${link}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(confirmed.status).toBe(200);

    // The mail catcher: one match email per fitting candidate, one summary to the contact address.
    const subjects = { match: `New match: ${role.title}`, summary: `3 candidates match ${role.title}` };
    const mail = await waitFor(
      async () => {
        const all = (await (await fetch(`${mailUi}/api/messages`)).json()) as Caught[];
        const about = all.filter((m) => m.subject === subjects.match || m.subject.endsWith(role.title));
        return about.length >= 4 ? about : undefined;
      },
      { timeoutMs: 30_000, message: 'the match emails and the summary' },
    );
    const matchMail = mail.filter((m) => m.subject === subjects.match).flatMap((m) => m.to);
    expect(matchMail.sort()).toEqual(fitting.map((p) => emailOf(p.name)).sort());
    expect(mail.filter((m) => m.subject !== subjects.match && m.id !== confirmation.id)).toEqual([
      expect.objectContaining({ to: [role.contactEmail], subject: subjects.summary }),
    ]);
    // Sent once each, as the notification log says (on the notifications admin port).
    for (const person of fitting) {
      const log = (await (
        await fetch(
          `${adminUrls.notifications}/internal/notifications?recipient=${encodeURIComponent(emailOf(person.name))}`,
          { headers: await adminAuth(instance, stateDir) },
        )
      ).json()) as { items: { template: string; status: string }[] };
      expect(log.items.filter((n) => n.template === 'match')).toEqual([
        expect.objectContaining({ status: 'sent' }),
      ]);
    }
    for (const person of unfitting) {
      const log = (await (
        await fetch(
          `${adminUrls.notifications}/internal/notifications?recipient=${encodeURIComponent(emailOf(person.name))}`,
          { headers: await adminAuth(instance, stateDir) },
        )
      ).json()) as { items: { template: string }[] };
      expect(log.items.map((n) => n.template)).toEqual(['welcome']);
    }

    launcher.child.kill('SIGTERM');
    expect(await launcher.exited).toBe(0);
  }, 210_000);
});
