import type { HttpServer } from '@hireflow/runtime';
import { z } from 'zod';
import { escapeHtml } from '../email/templates.ts';
import { PAGE_CSP, page } from '../suppression/page.ts';
import type { ConfirmationTokens } from './token.ts';

const query = z.object({ token: z.string().max(2000).optional() });

export interface ContactRoutesOptions {
  tokens: ConfirmationTokens;
  /** Records the confirmation and sends what waited for it. */
  confirm(tenantId: string, address: string): Promise<void>;
}

/**
 * The link of a contact-confirmation email: a GET shows a button and changes
 * nothing (mail scanners open links), the POST confirms. The token is the
 * whole credential; it names the tenant and the address.
 */
export function registerContactRoutes(app: HttpServer, options: ContactRoutesOptions): void {
  const answer = (
    reply: { code(n: number): unknown; header(k: string, v: string): unknown; type(t: string): unknown },
    status: number,
    content: string,
  ) => {
    reply.code(status);
    reply.header('content-security-policy', PAGE_CSP);
    reply.type('text/html; charset=utf-8');
    return content;
  };
  const invalid = page(
    'This link is not valid',
    '<p>The confirmation link is incomplete, was changed or has expired (links work for 7 days).</p>',
  );

  app.get('/v1/contacts/confirm', { schema: { querystring: query, hide: true } }, async (request, reply) => {
    if (!options.tokens.read(request.query.token ?? '')) return answer(reply, 400, invalid);
    return answer(
      reply,
      200,
      page(
        'Confirm this address',
        `<p>A Hireflow customer named this address as the contact of its job postings. Confirm to receive their match summaries here; ignore the email to receive nothing.</p><form method="post" action="${escapeHtml(request.url)}"><button type="submit">Confirm</button></form>`,
      ),
    );
  });

  app.post('/v1/contacts/confirm', { schema: { querystring: query, hide: true } }, async (request, reply) => {
    const claim = options.tokens.read(request.query.token ?? '');
    if (!claim) return answer(reply, 400, invalid);
    await options.confirm(claim.tenantId, claim.address);
    request.log.info({ tenantId: claim.tenantId }, 'a contact address was confirmed');
    return answer(
      reply,
      200,
      page('Address confirmed', '<p>Match summaries will be sent to this address.</p>'),
    );
  });
}
