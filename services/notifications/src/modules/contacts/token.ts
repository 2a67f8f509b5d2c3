import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** How long a confirmation link works. */
export const CONFIRMATION_TTL_MS = 7 * 24 * 3_600_000;

/** Who confirms what: a tenant's use of an address as a posting contact. */
export interface ContactClaim {
  tenantId: string;
  address: string;
}

/**
 * The token of a contact-confirmation link: tenant, address and expiry,
 * encrypted and authenticated (AES-256-GCM) with a key derived from
 * UNSUBSCRIBE_SIGNING_KEY for this use alone. Nobody can confirm an address
 * without the email sent to it, and the URL shows neither.
 */
export interface ConfirmationTokens {
  issue(claim: ContactClaim): string;
  /** The claim, or undefined for a token this key did not issue or that expired. */
  read(token: string): ContactClaim | undefined;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

export function confirmationTokens(signingKey: string, now: () => number = Date.now): ConfirmationTokens {
  const key = Buffer.from(hkdfSync('sha256', signingKey, 'hireflow', 'contact-confirmation-v1', 32));
  return {
    issue({ tenantId, address }) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const plain = JSON.stringify({ t: tenantId, a: address.toLowerCase(), e: now() + CONFIRMATION_TTL_MS });
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
    },
    read(token) {
      if (!/^[A-Za-z0-9_-]{40,2000}$/.test(token)) return undefined;
      const raw = Buffer.from(token, 'base64url');
      if (raw.length <= IV_BYTES + TAG_BYTES) return undefined;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
        decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
        const plain = Buffer.concat([
          decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)),
          decipher.final(),
        ]).toString('utf8');
        const { t, a, e } = JSON.parse(plain) as { t: string; a: string; e: number };
        return e > now() ? { tenantId: t, address: a } : undefined;
      } catch {
        return undefined;
      }
    },
  };
}
