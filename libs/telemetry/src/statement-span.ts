import type { Span } from '@opentelemetry/api';
import { summarizeSql } from './sql-summary.ts';

/** A named prepared statement's summary, worked out once (names are few: one per statement in the code). */
const byStatementName = new Map<string, string | undefined>();
const MAX_CACHED = 1000;

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
  let summary: string | undefined;
  if (query.name) {
    if (byStatementName.has(query.name)) summary = byStatementName.get(query.name);
    else {
      summary = summarizeSql(query.text);
      if (byStatementName.size < MAX_CACHED) byStatementName.set(query.name, summary);
    }
  } else summary = summarizeSql(query.text);
  if (!summary) return;
  span.updateName(summary);
  span.setAttribute('db.query.summary', summary);
}
