import type { Span } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { markSqlScrubbed, PrivacySpanProcessor } from './privacy.ts';

/** Just what the processor reads and writes of a span. */
const span = (attributes: Record<string, string>) => {
  const values: Record<string, string> = { ...attributes };
  const fake = {
    attributes: values,
    setAttribute(key: string, value: string): void {
      values[key] = value;
    },
  };
  return fake as unknown as Span & { attributes: Record<string, string> };
};

describe('PrivacySpanProcessor', () => {
  it('scrubs SQL and URLs as a span ends', () => {
    const ending = span({
      'db.query.text': "select 1 from t where a = 'x@y.test'",
      'url.full': '/v1?to=x@y.test',
    });
    new PrivacySpanProcessor().onEnding(ending);
    expect(ending.attributes).toEqual({
      'db.query.text': 'select ? from t where a = ?',
      'url.full': '/v1?to=*',
    });
  });

  it('leaves the SQL of a span whose statement was scrubbed as it started (nameStatementSpan), still its URLs', () => {
    const ending = span({ 'db.query.text': 'select ? from t where a = ?', 'url.full': '/v1?to=x@y.test' });
    markSqlScrubbed(ending);
    const writes: string[] = [];
    const set = ending.setAttribute.bind(ending);
    ending.setAttribute = ((k: string, v: string) => {
      writes.push(k);
      return set(k, v);
    }) as never;
    new PrivacySpanProcessor().onEnding(ending);
    expect(writes).toEqual(['url.full']);
  });
});
