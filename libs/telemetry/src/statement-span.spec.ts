import { trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nameStatementSpan } from './statement-span.ts';
import { startTestTracing } from './testing.ts';

let tracing: ReturnType<typeof startTestTracing>;
beforeAll(() => {
  tracing = startTestTracing();
});
afterAll(() => tracing.stop());

const statementSpan = (query: { text: string; name?: string }) => {
  const span = trace.getTracer('spec').startSpan(`pg.query:${query.name ?? 'SELECT'} hireflow_jobs`);
  nameStatementSpan(span, query);
  span.end();
  return tracing.exporter.getFinishedSpans().at(-1)!;
};

describe('nameStatementSpan', () => {
  it('renames a statement span by its summary and records it as db.query.summary, a prepared one by its text', () => {
    const prepared = statementSpan({
      name: 'hf_9e0b12d386ad90bbe98f',
      text: 'UPDATE job_posting SET status = $1',
    });
    expect(prepared.name).toBe('UPDATE job_posting');
    expect(prepared.attributes['db.query.summary']).toBe('UPDATE job_posting');
    // The same prepared name again: the same summary (worked out once).
    expect(
      statementSpan({ name: 'hf_9e0b12d386ad90bbe98f', text: 'UPDATE job_posting SET status = $1' }).name,
    ).toBe('UPDATE job_posting');
    expect(statementSpan({ text: "select * from candidate where email = 'a@b.test'" }).name).toBe(
      'SELECT candidate',
    );
  });

  it('records the statement text with its literals scrubbed as the statement starts', () => {
    const span = statementSpan({ text: "select * from candidate where email = 'a@b.test' and age > 40" });
    expect(span.attributes['db.query.text']).toBe('select * from candidate where email = ? and age > ?');
    const prepared = statementSpan({ name: 'hf_0123456789abcdef0123', text: "UPDATE outbox SET kind = 'x'" });
    expect(prepared.attributes['db.query.text']).toBe('UPDATE outbox SET kind = ?');
  });

  it('leaves a span it cannot summarize as the instrumentation named it', () => {
    const span = statementSpan({ text: '' });
    expect(span.name).toBe('pg.query:SELECT hireflow_jobs');
    expect(span.attributes['db.query.summary']).toBeUndefined();
  });
});
