import type { Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace';
import { scrubSql, scrubUrl } from './scrub.ts';

/**
 * Spans whose `db.query.text` was scrubbed as the statement started (the pg
 * instrumentation's hook, `nameStatementSpan`): not scrubbed again as they end.
 */
const sqlScrubbed = new WeakSet<object>();

/** Says that `span`'s SQL text is scrubbed already (and stays as set). */
export function markSqlScrubbed(span: object): void {
  sqlScrubbed.add(span);
}

/** Attributes that can carry literals or query values, whichever instrumentation set them. */
const SQL_ATTRIBUTES = ['db.query.text', 'db.statement'];
const URL_ATTRIBUTES = ['url.path', 'url.full', 'http.target', 'http.url'];

/**
 * Scrubs every span as it ends, before any exporter sees it: SQL text loses
 * its literals (an email in a WHERE clause), URLs their query values, and
 * `url.query` is dropped to its parameter names. One place for every
 * instrumentation (pg, http, @fastify/otel, ioredis), present and future.
 */
export class PrivacySpanProcessor implements SpanProcessor {
  onStart(_span: Span, _context: Context): void {}

  onEnding(span: Span): void {
    const attributes = span.attributes;
    if (!sqlScrubbed.has(span))
      for (const name of SQL_ATTRIBUTES) {
        const value = attributes[name];
        if (typeof value === 'string') span.setAttribute(name, scrubSql(value));
      }
    for (const name of URL_ATTRIBUTES) {
      const value = attributes[name];
      if (typeof value === 'string') span.setAttribute(name, scrubUrl(value));
    }
    const query = attributes['url.query'];
    if (typeof query === 'string') span.setAttribute('url.query', scrubUrl(`?${query}`).slice(1));
  }

  onEnd(_span: ReadableSpan): void {}

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}
