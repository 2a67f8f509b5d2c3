import type { CaughtEmail } from '@hireflow/testing/smtp';
import { describe, expect, it } from 'vitest';
import { badTextOutcome, checkSmallTenant, digestOf, queuesReached, uploadOrGone } from './checker.ts';
import { BAD_TEXT_ACCEPTED, type SmallTenantRecord } from './workload.ts';

const email = (key: string, acceptedAt: number, messageId = `<${digestOf(key)}@hireflow>`): CaughtEmail => ({
  key: digestOf(key),
  messageId,
  providerId: `p-${acceptedAt}`,
  envelopeTo: ['someone@chaos.test'],
  acceptedAt,
  receivedAt: acceptedAt,
  lagMs: 0,
});

/** A role posted at `at` with two people, every one of its emails accepted `after` ms later (match emails at +after, +after+1). */
function role(n: number, at: number, after: number) {
  const record: SmallTenantRecord = {
    n,
    startedAt: at,
    ok: true,
    postingId: `posting-${n}`,
    candidateIds: [`c-${n}-0`, `c-${n}-1`],
  };
  const emails = [
    email(`welcome-email:c-${n}-0`, at + 10),
    email(`welcome-email:c-${n}-1`, at + 10),
    email(`job-matched:posting-${n}`, at + after),
    email(`match-email:posting-${n}:c-${n}-0`, at + after),
    email(`match-email:posting-${n}:c-${n}-1`, at + after + 1),
  ];
  return { record, emails };
}

describe("the chaos checker's small tenant", () => {
  it('measures each role from its first request to the last of its match emails, p50 and p99', () => {
    const roles = Array.from({ length: 10 }, (_, n) => role(n, 1000 * n, 100 * (n + 1)));
    const result = checkSmallTenant(
      roles.map((r) => r.record),
      roles.flatMap((r) => r.emails),
    );
    expect(result.roles).toEqual({ planned: 10, posted: 10, failed: 0 });
    expect(result.emails).toEqual({ expected: 50, seen: 50 });
    expect(result).toMatchObject({ lost: 0, queued: 0, sameIdCopies: 0, differentIdCopies: 0 });
    // Latencies 101, 201, … 1001 ms.
    expect(result.latencyMs).toEqual({ count: 10, p50: 601, p99: 1001, max: 1001 });
  });

  it('counts a missing email as lost (or queued, when the log still holds it) and leaves its role out of the latencies', () => {
    const a = role(0, 0, 100);
    const b = role(1, 0, 300);
    const emails = [...a.emails, ...b.emails].filter(
      (e) => e.key !== digestOf('match-email:posting-1:c-1-1') && e.key !== digestOf('welcome-email:c-0-1'),
    );
    const result = checkSmallTenant([a.record, b.record], emails, new Set(['welcome-email:c-0-1']));
    expect(result.lost).toBe(1);
    expect(result.lostKeys).toEqual(['match-email:posting-1:c-1-1']);
    expect(result.queued).toBe(1);
    expect(result.latencyMs).toMatchObject({ count: 1, p50: 101, max: 101 });
  });

  it('tells copies under the same Message-ID from copies under another one', () => {
    const { record, emails } = role(0, 0, 100);
    const welcome = emails[0]!;
    const result = checkSmallTenant(
      [record],
      [
        ...emails,
        { ...welcome, acceptedAt: 50 },
        { ...welcome, messageId: '<other@hireflow>', acceptedAt: 60 },
      ],
    );
    expect(result).toMatchObject({ sameIdCopies: 1, differentIdCopies: 1, lost: 0 });
  });

  it('reports a role that was never posted, and expects nothing of it', () => {
    const { record, emails } = role(0, 0, 100);
    const failed: SmallTenantRecord = { n: 1, startedAt: 0, ok: false, error: '503', candidateIds: [] };
    const result = checkSmallTenant([record, failed], emails);
    expect(result.roles).toEqual({ planned: 2, posted: 1, failed: 1 });
    expect(result.emails).toEqual({ expected: 5, seen: 5 });
  });
});

describe("the chaos checker's uploads", () => {
  it('counts an upload the API no longer knows (404) as gone, with no variants, instead of stopping', async () => {
    const notFound = Object.assign(new Error('404 NOT_FOUND: No upload'), { status: 404 });
    await expect(uploadOrGone(() => Promise.reject(notFound))).resolves.toEqual({
      status: 'gone',
      variants: [],
    });
  });

  it('still stops on any other failure', async () => {
    const down = Object.assign(new Error('503'), { status: 503 });
    await expect(uploadOrGone(() => Promise.reject(down))).rejects.toBe(down);
  });
});

describe('where the checker expects a poison event', () => {
  it("in the interactive inbox of each subscriber, never the bulk lane's (the workload sets no lane)", () => {
    const queues = queuesReached('jobs-events', 'candidate.registered.v1');
    expect(queues).toContain('notifications-inbox');
    expect(queues).toContain('matching-inbox');
    expect(queues.filter((q) => q.endsWith('-bulk'))).toEqual([]);
  });
});

describe("the chaos checker's bad-text postings", () => {
  it('fails the run only for one accepted; one with no answer before its deadline was not accepted', () => {
    const outcome = badTextOutcome([
      { kind: 'bad-text', ok: true },
      { kind: 'bad-text', ok: false, error: 'The operation was aborted due to timeout' },
      { kind: 'bad-text', ok: false, error: BAD_TEXT_ACCEPTED },
      { kind: 'posting', ok: false, error: BAD_TEXT_ACCEPTED },
      undefined,
    ]);
    expect(outcome).toEqual({ refused: 1, accepted: 1, gaveUp: 1 });
  });
});
