import { trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { summarizeSql } from './sql-summary.ts';
import { nameStatementSpan } from './statement-span.ts';
import { startTestTracing } from './testing.ts';

// The tokenizer counted: a statement's summary is worked out once per
// statement, not once per span (it cost as much CPU as the SDK's work for the span).
vi.mock('./sql-summary.ts', async (actual) => {
  const real = await actual<typeof import('./sql-summary.ts')>();
  return { summarizeSql: vi.fn(real.summarizeSql) };
});

let tracing: ReturnType<typeof startTestTracing>;
beforeAll(() => {
  tracing = startTestTracing();
});
afterAll(() => tracing.stop());

const named = (text: string) => {
  const span = trace.getTracer('spec').startSpan('pg.query:SELECT hireflow_notifications');
  nameStatementSpan(span, { text });
  span.end();
  return tracing.exporter.getFinishedSpans().at(-1)!;
};

describe('nameStatementSpan, an unnamed statement (MikroORM writes its values into the SQL)', () => {
  it('summarizes a statement once, whatever literals each run carries', () => {
    vi.mocked(summarizeSql).mockClear();
    const texts = [
      `select "n0".* from "notification_log" as "n0" where "n0"."key" = 'welcome:0d6f…' and "n0"."tenant_id" = 'a1' limit 1`,
      `select "n0".* from "notification_log" as "n0" where "n0"."key" = 'match:9c1e…' and "n0"."tenant_id" = 'b2' limit 1`,
      `select "n0".* from "notification_log" as "n0" where "n0"."key" = 'it''s' and "n0"."tenant_id" = 'c3' limit 2`,
    ];
    for (const text of texts) {
      const span = named(text);
      expect(span.name).toBe('SELECT notification_log');
      expect(span.attributes['db.query.summary']).toBe('SELECT notification_log');
    }
    expect(summarizeSql).toHaveBeenCalledTimes(1);
  });

  it('summarizes a different statement on its own', () => {
    vi.mocked(summarizeSql).mockClear();
    expect(named(`update "notification_log" set "status" = 'sent' where "id" = 7`).name).toBe(
      'UPDATE notification_log',
    );
    expect(named(`delete from "suppression" where "address" = 'x@y.test'`).name).toBe('DELETE suppression');
    expect(summarizeSql).toHaveBeenCalledTimes(2);
  });
});
