import type { Span } from '@opentelemetry/api';
import { markSqlScrubbed } from './privacy.ts';
import { scrubSql } from './scrub.ts';
import { summarizeSql } from './sql-summary.ts';

/** What a statement's span gets: its summary (the name) and its text, literals scrubbed. */
interface Statement {
  summary: string | undefined;
  scrubbed: string;
}

/**
 * Statements worked out once: by a named prepared statement's name (its
 * text is fixed by the name), and by the scrubbed text of any other
 * statement. MikroORM writes its values into the SQL it sends, so its
 * statements' texts differ by their literals only; scrubbed, they repeat (a
 * summary names no literal, so it is the same). Tokenizing a statement cost
 * 30–90 µs of CPU, per span, as much as the SDK's own work for it; scrubbing
 * it costs a tenth of that, and is done once per span (the span carries the
 * scrubbed text from the start, so `PrivacySpanProcessor` need not scrub it
 * again as it ends). Bounded: past `MAX_CACHED` entries a map starts over,
 * and a text longer than `MAX_CACHED_TEXT` is summarized each time, not kept.
 */
const byStatementName = new Map<string, Statement>();
const byScrubbedText = new Map<string, string | undefined>();
const MAX_CACHED = 1000;
const MAX_CACHED_TEXT = 8192;

function remember<V>(cache: Map<string, V>, key: string, value: V): V {
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(key, value);
  return value;
}

function statementOf(query: { text: string; name?: string | undefined }): Statement {
  if (query.text.length > MAX_CACHED_TEXT) {
    return { summary: summarizeSql(query.text), scrubbed: scrubSql(query.text) };
  }
  if (query.name) {
    const known = byStatementName.get(query.name);
    if (known) return known;
    const scrubbed = scrubSql(query.text);
    return remember(byStatementName, query.name, { summary: summarizeSql(scrubbed), scrubbed });
  }
  const scrubbed = scrubSql(query.text);
  const summary = byScrubbedText.has(scrubbed)
    ? byScrubbedText.get(scrubbed)
    : remember(byScrubbedText, scrubbed, summarizeSql(scrubbed));
  return { summary, scrubbed };
}

/**
 * Names a database span after its statement (`INSERT job_posting INSERT
 * outbox`, `SELECT candidate`) and records that as `db.query.summary`, per
 * OpenTelemetry's database conventions, whatever name a prepared statement
 * was given; `db.query.text` becomes the scrubbed text. Called by the pg
 * instrumentation as each query starts, after sampling:
 * `QuietStatementsSampler` still sees the instrumentation's own
 * `pg.query:BEGIN …` name.
 */
export function nameStatementSpan(span: Span, query: { text: string; name?: string | undefined }): void {
  if (!span.isRecording() || typeof query.text !== 'string') return;
  if (!query.text) return;
  const { summary, scrubbed } = statementOf(query);
  span.setAttribute('db.query.text', scrubbed);
  markSqlScrubbed(span);
  if (!summary) return;
  span.updateName(summary);
  span.setAttribute('db.query.summary', summary);
}
