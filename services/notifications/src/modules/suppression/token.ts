import { sealedTokens } from '../links/sealed-token.ts';

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

export function unsubscribeTokens(signingKey: string): UnsubscribeTokens {
  const sealed = sealedTokens(signingKey, 'unsubscribe-token-v1');
  return {
    issue: (address) => sealed.seal(address.toLowerCase()),
    read: (token) => sealed.open(token),
  };
}
