import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * The token of a one-click unsubscribe link: the recipient's address,
 * encrypted and authenticated (AES-256-GCM) with a key derived from
 * UNSUBSCRIBE_SIGNING_KEY. Nobody can make a token for someone else's
 * address, and the link does not show the address to whoever sees the URL
 * (proxies, logs). It does not expire: an old email's link keeps working.
 */
export interface UnsubscribeTokens {
  issue(address: string): string;
  /** The address, or undefined for a token this key did not issue. */
  read(token: string): string | undefined;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

export function unsubscribeTokens(signingKey: string): UnsubscribeTokens {
  const key = Buffer.from(hkdfSync('sha256', signingKey, 'hireflow', 'unsubscribe-token-v1', 32));
  return {
    issue(address) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(address.toLowerCase(), 'utf8'), cipher.final()]);
      return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
    },
    read(token) {
      if (!/^[A-Za-z0-9_-]{40,2000}$/.test(token)) return undefined;
      const raw = Buffer.from(token, 'base64url');
      if (raw.length <= IV_BYTES + TAG_BYTES) return undefined;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
        decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
        return Buffer.concat([
          decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)),
          decipher.final(),
        ]).toString('utf8');
      } catch {
        return undefined;
      }
    },
  };
}
