import { escapeHtml } from '../email/templates.ts';

/** The pages of the unsubscribe link: plain, no script, nothing loaded from elsewhere. */
export const PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'";

/** A plain page: no script, nothing loaded from elsewhere (PAGE_CSP). */
export function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>body{font:16px system-ui,sans-serif;max-width:32em;margin:4em auto;padding:0 1em;color:#222}button{font:inherit;padding:.6em 1.4em;border:0;border-radius:6px;background:#2b59c3;color:#fff;cursor:pointer}</style></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}

/** A GET shows a button and changes nothing: mail scanners open links (RFC 8058). */
export function confirmPage(action: string): string {
  return page(
    'Unsubscribe from Hireflow',
    `<p>Stop every email from Hireflow to this address?</p><form method="post" action="${escapeHtml(action)}"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>`,
  );
}

export function donePage(): string {
  return page('You are unsubscribed', '<p>Hireflow will send no more email to this address.</p>');
}

export function invalidPage(): string {
  return page(
    'This link is not valid',
    '<p>The unsubscribe link is incomplete or was changed. Use the link of an email you received.</p>',
  );
}
