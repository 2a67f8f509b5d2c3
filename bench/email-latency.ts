// What the email benches share: waiting for the SMTP sink to have accepted a
// number of emails, and publish → SMTP accept of welcome emails at a steady rate.
import { setTimeout as delay } from 'node:timers/promises';
import { idempotencyKey } from '@hireflow/idempotency';
import { candidateRegistered } from '@hireflow/testing/events';
import { keyDigest, type SmtpCatcher } from '@hireflow/testing/smtp';

/** Resolves once `count` more emails were accepted (the catcher never forgets); throws after `timeoutMs`. */
export function acceptedCount(smtp: SmtpCatcher, count: number, timeoutMs: number): Promise<void> {
  const target = smtp.emails.length + count;
  const deadline = Date.now() + timeoutMs;
  return (async () => {
    while (smtp.emails.length < target) {
      if (Date.now() > deadline) throw new Error(`only ${smtp.emails.length} of ${target} emails accepted`);
      await delay(2);
    }
  })();
}

/**
 * Publishes `count` candidate.registered.v1 events of one tenant at
 * `ratePerSecond` and returns, per welcome email, publish time → SMTP accept
 * time (ms). Emails carry the digest of their intent key.
 */
export async function welcomeLatencies(
  smtp: SmtpCatcher,
  options: { count: number; ratePerSecond: number; tenantId: string; timeoutMs: number },
  publish: (event: ReturnType<typeof candidateRegistered>) => Promise<unknown>,
): Promise<number[]> {
  const publishedAt = new Map<string, number>();
  const done = acceptedCount(smtp, options.count, options.timeoutMs);
  const from = smtp.emails.length;
  const interval = 1000 / options.ratePerSecond;
  const started = performance.now();
  const publishes: Promise<unknown>[] = [];
  for (let i = 0; i < options.count; i++) {
    const wait = started + i * interval - performance.now();
    if (wait > 1) await delay(wait);
    const event = candidateRegistered(options.tenantId);
    publishedAt.set(
      keyDigest(idempotencyKey('welcome-email', event.data.candidateId)),
      performance.timeOrigin + performance.now(),
    );
    publishes.push(publish(event));
  }
  await Promise.all(publishes);
  await done;
  return smtp.emails.slice(from).map((e) => e.acceptedAt - publishedAt.get(e.key!)!);
}
