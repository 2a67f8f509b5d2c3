// What an email says of its intent: its Message-ID and idempotency digest,
// and what the provider answered. The intents' store records them, the
// mailer sends them: here, with the intents, so email depends on intents and
// not the other way round.
import { createHash } from 'node:crypto';

export const MESSAGE_ID_DOMAIN = 'hireflow.local';

/**
 * What an email says of its intent key: a SHA-256 (hex), so the key (which
 * names a candidate or a posting) never reaches a recipient, and stable, so
 * every retry of one email carries the same value and a provider or a mail
 * client can drop a copy. Sent as `X-Idempotency-Key` and in the Message-ID.
 */
export function keyDigest(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** The Message-ID of an intent key (its digest at our domain). */
export function messageIdFor(key: string): string {
  return `<${keyDigest(key)}@${MESSAGE_ID_DOMAIN}>`;
}

export interface AcceptedEmail {
  messageId: string;
  /** The provider's id from its `250` reply (`queued as …`), else the reply itself. */
  providerMessageId: string;
}
