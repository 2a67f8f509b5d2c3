import type { Span } from '@opentelemetry/api';
import { scrubSql } from './scrub.ts';
import { summarizeSql } from './sql-summary.ts';

/**
 * Summaries worked out once: by a named prepared statement's name, and by
 * the scrubbed text of any other statement. MikroORM writes its values into
 * the SQL it sends, so its statements' texts differ by their literals only;
 * scrubbed, they repeat (a summary names no literal, so it is the same).
 * Tokenizing a statement cost 30–90 µs of CPU, per span, as much as the
 * SDK's own work for it; scrubbing it costs a tenth of that. Bounded: past
 * `MAX_CACHED` entries a map starts over, and a text longer than
 * `MAX_CACHED_TEXT` is summarized each time, not kept.
 */
const byStatementName = new Map<string, string | undefined>();
const byScrubbedText = new Map<string, string | undefined>();
const MAX_CACHED = 1000;
const MAX_CACHED_TEXT = 8192;

function remembered(cache: Map<string, string | undefined>, key: string, text: string): string | undefined {
  if (cache.has(key)) return cache.get(key);
  const summary = summarizeSql(text);
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(key, summary);
  return summary;
}

function summaryOf(query: { text: string; name?: string | undefined }): string | undefined {
  if (query.name) return remembered(byStatementName, query.name, query.text);
  if (query.text.length > MAX_CACHED_TEXT) return summarizeSql(query.text);
  const scrubbed = scrubSql(query.text);
  return remembered(byScrubbedText, scrubbed, scrubbed);
}

/**
 * Names a database span after its statement (`INSERT job_posting INSERT
 * outbox`, `SELECT candidate`) and records that as `db.query.summary`, per
 * OpenTelemetry's database conventions, whatever name a prepared statement
 * was given. Called by the pg instrumentation as each query starts, after
 * sampling: `QuietStatementsSampler` still sees the instrumentation's own
 * `pg.query:BEGIN …` name.
 */
export function nameStatementSpan(span: Span, query: { text: string; name?: string | undefined }): void {
  if (!span.isRecording() || typeof query.text !== 'string') return;
  const summary = summaryOf(query);
  if (!summary) return;
  span.updateName(summary);
  span.setAttribute('db.query.summary', summary);
}
