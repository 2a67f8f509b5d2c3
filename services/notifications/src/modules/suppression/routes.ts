import type { Database } from '@hireflow/db';
import type { HttpServer } from '@hireflow/runtime';
import { z } from 'zod';
import { confirmPage, donePage, invalidPage, PAGE_CSP } from './page.ts';
import { suppress } from './store.ts';
import type { UnsubscribeTokens } from './token.ts';

const query = z.object({ token: z.string().max(2000).optional() });

/**
 * The one public route of notifications: RFC 8058 one-click unsubscribe.
 * A POST (what a mail client's "unsubscribe" button sends, with the body
 * `List-Unsubscribe=One-Click`) adds the address of a valid token to the
 * suppression list; a GET only shows a page with a button, since mail
 * scanners open links. The token is the whole credential.
 */
export function registerUnsubscribeRoutes(
  app: HttpServer,
  options: { orm: Database; tokens: UnsubscribeTokens },
): void {
  // Mail clients post a form; a small parser keeps the body bounded.
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 1024 },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );
  const html = (status: number, content: string) => ({ status, content });
  const answer = (
    reply: { code(n: number): unknown; header(k: string, v: string): unknown; type(t: string): unknown },
    page: { status: number; content: string },
  ) => {
    reply.code(page.status);
    reply.header('content-security-policy', PAGE_CSP);
    reply.type('text/html; charset=utf-8');
    return page.content;
  };

  app.get('/v1/unsubscribe', { schema: { querystring: query, hide: true } }, async (request, reply) => {
    const address = options.tokens.read(request.query.token ?? '');
    if (!address) return answer(reply, html(400, invalidPage()));
    return answer(reply, html(200, confirmPage(request.url)));
  });

  app.post('/v1/unsubscribe', { schema: { querystring: query, hide: true } }, async (request, reply) => {
    const address = options.tokens.read(request.query.token ?? '');
    if (!address) return answer(reply, html(400, invalidPage()));
    await suppress(options.orm.em.fork(), address, 'one-click unsubscribe');
    request.log.info('an address unsubscribed');
    return answer(reply, html(200, donePage()));
  });
}
