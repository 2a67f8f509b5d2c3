import { sealedTokens } from '../links/sealed-token.ts';

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

export function confirmationTokens(signingKey: string, now: () => number = Date.now): ConfirmationTokens {
  const sealed = sealedTokens(signingKey, 'contact-confirmation-v1');
  return {
    issue({ tenantId, address }) {
      return sealed.seal(
        JSON.stringify({ t: tenantId, a: address.toLowerCase(), e: now() + CONFIRMATION_TTL_MS }),
      );
    },
    read(token) {
      const plain = sealed.open(token);
      if (plain === undefined) return undefined;
      try {
        const { t, a, e } = JSON.parse(plain) as { t: string; a: string; e: number };
        return e > now() ? { tenantId: t, address: a } : undefined;
      } catch {
        return undefined;
      }
    },
  };
}
