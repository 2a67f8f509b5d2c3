import { createHash, randomUUID } from 'node:crypto';
import { idempotencyKey } from '@hireflow/idempotency';
import { isPermanent, taskIdFor } from '@hireflow/messaging';
import { waitFor } from '@hireflow/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { createMailer } from '../src/modules/email/mailer.ts';
import { render } from '../src/modules/email/templates.ts';
import {
  candidateRegistered,
  jobMatched,
  jobPosted,
  matchFound,
  testEmailProcessor,
  useNotificationsHarness,
  waitForSent,
} from './harness.ts';

const tenantId = randomUUID();
const messageIdOf = (key: string) => `<${createHash('sha256').update(key).digest('hex')}@hireflow.local>`;

const h = useNotificationsHarness('notif-emails');
beforeAll(() => {
  h.smtp.refuse = /@bounce\.test$/;
});

describe('one email per event, with the right content', () => {
  it('sends the welcome, match and summary emails once each, escaped, carrying the key', async () => {
    const posted = jobPosted(tenantId, { title: 'Backend <engineer> & "ops"' });
    const candidate = candidateRegistered(tenantId, { name: '<script>alert(1)</script>' });
    await Promise.all([h.publish(posted), h.publish(candidate)]);
    await Promise.all([h.spy.waitForHandled(posted.id), h.spy.waitForHandled(candidate.id)]);
    const { jobId: postingId, contactEmail } = posted.data;
    const { candidateId, email } = candidate.data;
    await h.publish(matchFound(tenantId, postingId, candidateId, 0.87));
    await h.publish(jobMatched(tenantId, postingId, 3));

    const keys = {
      welcome: idempotencyKey('welcome-email', candidateId),
      match: idempotencyKey('match-email', postingId, candidateId),
      summary: idempotencyKey('job-matched', postingId),
    };
    const rows = await waitForSent(h, Object.values(keys));
    const [welcome, match, summary] = [keys.welcome, keys.match, keys.summary].map((key) => {
      const caught = h.smtp.byKey(key);
      expect(caught, key).toHaveLength(1);
      const email = caught[0]!;
      expect(email.messageId).toBe(messageIdOf(key));
      expect(rows.find((r) => r.key === key)).toMatchObject({
        attempts: 1,
        message_id: messageIdOf(key),
        provider_message_id: email.providerId,
      });
      return email;
    });

    expect(welcome!.envelopeTo).toEqual([email]);
    expect(welcome!.parsed!.subject).toBe('Welcome to Hireflow, <script>alert(1)</script>');
    expect(welcome!.parsed!.text).toContain('Hello <script>alert(1)</script>,');
    expect(welcome!.parsed!.html).toContain('Hello &lt;script&gt;alert(1)&lt;/script&gt;,');
    expect(welcome!.parsed!.html).not.toContain('<script>');

    expect(match!.envelopeTo).toEqual([email]);
    expect(match!.parsed!.subject).toBe('New match: Backend <engineer> & "ops"');
    expect(match!.parsed!.text).toContain(
      'the posting "Backend <engineer> & "ops"" matches your profile (87 %)',
    );
    expect(match!.parsed!.html).toContain('<strong>Backend &lt;engineer&gt; &amp; &quot;ops&quot;</strong>');

    expect(summary!.envelopeTo).toEqual([contactEmail]);
    expect(summary!.parsed!.subject).toBe('3 candidates match Backend <engineer> & "ops"');
    expect(summary!.parsed!.text).toContain('has 3 matching candidates');

    // A recomputation of the posting's matches sends no second summary.
    const again = jobMatched(tenantId, postingId, 5);
    await h.publish(again);
    await h.spy.waitForHandled(again.id);
    expect(await h.taskState(keys.summary)).toBe('completed');
    expect(h.smtp.byKey(keys.summary)).toHaveLength(1);
  });

  it('keeps a header on one line whatever the name holds', () => {
    const { subject } = render('welcome', { name: 'Eve\r\nBcc: everyone@example.test' });
    expect(subject).toBe('Welcome to Hireflow, Eve Bcc: everyone@example.test');
  });
});

describe('duplicates', () => {
  it('sends one email for an event delivered five times, three of them at once', async () => {
    const event = candidateRegistered(tenantId);
    const key = idempotencyKey('welcome-email', event.data.candidateId);
    await Promise.all([h.publish(event), h.publish(event), h.publish(event)]);
    await waitForSent(h, [key]);
    await h.publish(event);
    await h.publish(event);
    await h.spy.waitForCount({ eventId: event.id, outcome: 'handled' }, 5, 30_000);
    expect(await h.taskState(key)).toBe('completed');
    expect(h.smtp.byKey(key)).toHaveLength(1);
    expect(await h.notification(key)).toMatchObject({ status: 'sent', attempts: 1 });
  });

  it('sends nothing when the email task runs again after its send, even with the wrapper record gone', async () => {
    const event = candidateRegistered(tenantId);
    const key = idempotencyKey('welcome-email', event.data.candidateId);
    await h.publish(event);
    const [row] = await waitForSent(h, [key]);
    const mailer = createMailer({
      url: h.smtp.url,
      from: 'test@hireflow.local',
      poolSize: 1,
      timeoutMs: 5000,
    });
    const process = testEmailProcessor(h, mailer);
    const task = { data: { key }, attemptsMade: 0, opts: { attempts: 3 } } as Parameters<typeof process>[0];
    try {
      // BullMQ retrying a task whose first run sent (a stalled task, a lost completion).
      expect(await process(task)).toEqual({
        messageId: row!.message_id,
        providerMessageId: row!.provider_message_id,
      });
      // The idempotency record gone (crash before its completion, or past its retention): the log still says sent.
      await h.deps.orm.em.fork().execute('DELETE FROM processed_message WHERE key = ?', [key]);
      expect(await process(task)).toEqual({
        messageId: row!.message_id,
        providerMessageId: row!.provider_message_id,
      });
    } finally {
      mailer.close();
    }
    expect(h.smtp.byKey(key)).toHaveLength(1);
  });
});

describe('permanent failures', () => {
  it('marks an email to a refused recipient failed after one attempt and never retries it', async () => {
    const address = `nobody-${randomUUID().slice(0, 8)}@bounce.test`;
    const event = candidateRegistered(tenantId, { email: address });
    const key = idempotencyKey('welcome-email', event.data.candidateId);
    await h.publish(event);
    const row = await waitFor(async () => {
      const r = await h.notification(key);
      return r?.status === 'failed' ? r : undefined;
    });
    expect(row.attempts).toBe(1);
    expect(row.error).toMatch(/SMTP 550/);
    await waitFor(async () => (await h.taskState(key)) === 'failed');
    const dead = (await h.emails.tasks.deadLetters(0, 999)).find((d) => d.id === taskIdFor(key));
    expect(dead).toMatchObject({ attemptsMade: 1, data: { key } });
    expect(h.smtp.recipientsTried.filter((a) => a === address)).toHaveLength(1);
    expect(h.smtp.byKey(key)).toHaveLength(0);
  });

  it('refuses an address that is not one before talking to the server', async () => {
    const mailer = createMailer({
      url: h.smtp.url,
      from: 'test@hireflow.local',
      poolSize: 1,
      timeoutMs: 5000,
    });
    try {
      const sent = mailer.send({ key: 'k:1', to: 'not an address', subject: 's', text: 't', html: 'h' });
      await expect(sent).rejects.toSatisfy(isPermanent);
    } finally {
      mailer.close();
    }
  });
});

describe('GET /internal/notifications (admin listener)', () => {
  it("lists a recipient's notifications, newest first, whatever the address case", async () => {
    const event = candidateRegistered(tenantId, { email: `Grace-${randomUUID().slice(0, 8)}@Example.test` });
    const key = idempotencyKey('welcome-email', event.data.candidateId);
    await h.publish(event);
    await waitForSent(h, [key]);
    const res = await h.admin.inject({
      method: 'GET',
      url: `/internal/notifications?recipient=${encodeURIComponent(event.data.email.toLowerCase())}`,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      items: [
        expect.objectContaining({
          key,
          recipient: event.data.email,
          template: 'welcome',
          status: 'sent',
          attempts: 1,
          messageId: messageIdOf(key),
          sentAt: expect.any(String),
          error: null,
        }),
      ],
      nextCursor: null,
    });
  });

  it('pages with a cursor', async () => {
    const email = `pager-${randomUUID().slice(0, 8)}@example.test`;
    const events = [1, 2, 3].map(() => candidateRegistered(tenantId, { email }));
    for (const event of events) await h.publish(event);
    await Promise.all(events.map((e) => h.spy.waitForHandled(e.id)));
    const first = (
      await h.admin.inject({ url: `/internal/notifications?recipient=${email}&limit=2` })
    ).json();
    expect(first.items).toHaveLength(2);
    const second = (
      await h.admin.inject({
        url: `/internal/notifications?recipient=${email}&limit=2&cursor=${first.nextCursor}`,
      })
    ).json();
    expect(second).toMatchObject({ nextCursor: null });
    const keys = [...first.items, ...second.items].map((i: { key: string }) => i.key);
    expect(new Set(keys)).toEqual(
      new Set(events.map((e) => idempotencyKey('welcome-email', e.data.candidateId))),
    );
  });

  it('answers a bad query with a problem naming the field', async () => {
    for (const [query, field] of [
      ['', 'recipient'],
      ['?recipient=nope', 'recipient'],
      ['?recipient=a@example.test&status=bounced', 'status'],
      ['?recipient=a@example.test&limit=0', 'limit'],
      ['?recipient=a@example.test&cursor=abc', 'cursor'],
      ['?recipient=a@example.test&cursor=9999999999999999999', 'cursor'],
      ['?recipient=a@example.test&to=x', 'to'],
    ] as const) {
      const res = await h.admin.inject({ url: `/internal/notifications${query}` });
      expect(res.statusCode, query).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json(), query).toMatchObject({
        code: 'VALIDATION_FAILED',
        errors: [expect.objectContaining({ field })],
      });
    }
  });
});

describe('review fixes', () => {
  it('retries a sender-side SMTP refusal (our configuration), gives up only on the recipient or the message', async () => {
    const { classifySmtpError } = await import('../src/modules/email/mailer.ts');
    const smtp = (
      responseCode: number | undefined,
      command: string,
      code = 'EENVELOPE',
      message = 'refused',
    ) => Object.assign(new Error(message), { responseCode, command, code });
    expect(isPermanent(classifySmtpError(smtp(550, 'MAIL FROM')))).toBe(false);
    expect(isPermanent(classifySmtpError(smtp(530, 'MAIL FROM')))).toBe(false);
    expect(isPermanent(classifySmtpError(smtp(535, 'AUTH PLAIN', 'EAUTH')))).toBe(false);
    expect(isPermanent(classifySmtpError(smtp(451, 'RCPT TO')))).toBe(false);
    expect(isPermanent(classifySmtpError(smtp(550, 'RCPT TO')))).toBe(true);
    expect(isPermanent(classifySmtpError(smtp(554, 'DATA', 'EMESSAGE')))).toBe(true);
    expect(isPermanent(classifySmtpError(smtp(undefined, 'API', 'EENVELOPE', 'No recipients defined')))).toBe(
      true,
    );
    expect(isPermanent(classifySmtpError(smtp(undefined, 'API', 'EENVELOPE', 'Invalid sender')))).toBe(false);
  });

  it('sends an intent left queued without a task (lost by Redis, or never added)', async () => {
    const { requeueStuckEmails } = await import('../src/modules/email/sweep.ts');
    const candidate = candidateRegistered(tenantId, { email: `${randomUUID()}@example.test` });
    await h.publish(candidate);
    const key = idempotencyKey('welcome-email', candidate.data.candidateId);
    await waitForSent(h, [key]);
    // the same intent as if its task had vanished before it ran: queued, never claimed
    const em = h.deps.orm.em.fork();
    await em.execute(
      `UPDATE notification_log SET status = 'queued', updated_at = now() - interval '1 hour' WHERE key = ?`,
      [key],
    );
    await em.execute('DELETE FROM processed_message WHERE key = ?', [key]);
    const task = await h.emails.tasks.queue.getJob(taskIdFor(key));
    await task?.remove();
    const requeued = await requeueStuckEmails(h.deps.orm.em.fork(), h.emails, { olderThanMs: 60_000 });
    expect(requeued).toEqual([key]);
    await waitForSent(h, [key]);
  });
});
