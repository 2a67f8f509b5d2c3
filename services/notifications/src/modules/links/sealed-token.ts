import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

// What the links of Hireflow's emails carry (one-click unsubscribe, contact
// confirmation): a text encrypted and authenticated with AES-256-GCM under a
// key derived from one secret for one use (`info`), so a token made for one
// link cannot open another, nobody without the secret can make one, and the
// URL shows nothing of what it carries (proxies, logs).

export interface SealedTokens {
  seal(plain: string): string;
  /** The text, or undefined for a token this key and use did not seal. */
  open(token: string): string | undefined;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

export function sealedTokens(secret: string, info: string): SealedTokens {
  const key = Buffer.from(hkdfSync('sha256', secret, 'hireflow', info, 32));
  return {
    seal(plain) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
    },
    open(token) {
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
