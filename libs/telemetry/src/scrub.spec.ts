import { describe, expect, it } from 'vitest';
import { scrubSql, scrubUrl } from './scrub.ts';

describe('scrubSql', () => {
  it('replaces string and number literals, keeps identifiers, keywords and placeholders', () => {
    expect(
      scrubSql(
        "select c0.* from candidate as c0 where c0.email = 'ada@example.test' and c0.score > 0.5 limit 20",
      ),
    ).toBe('select c0.* from candidate as c0 where c0.email = ? and c0.score > ? limit ?');
    expect(scrubSql('UPDATE t SET a = $1 WHERE id = $2')).toBe('UPDATE t SET a = $1 WHERE id = $2');
  });

  it("handles escaped quotes, E'' strings, dollar quoting and hashes", () => {
    expect(scrubSql("insert into t (name) values ('O''Brien'), (E'line\\nbreak')")).toBe(
      'insert into t (name) values (?), (?)',
    );
    expect(scrubSql('select $$secret body$$, $tag$also secret$tag$')).toBe('select ?, ?');
    expect(
      scrubSql("where key_hash = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'"),
    ).toBe('where key_hash = ?');
  });
});

describe('scrubUrl', () => {
  it('keeps the path and parameter names, drops the values', () => {
    expect(scrubUrl('/internal/notifications?recipient=bob%40x.test&limit=2')).toBe(
      '/internal/notifications?recipient=*&limit=*',
    );
    expect(scrubUrl('/v1/jobs')).toBe('/v1/jobs');
    expect(scrubUrl('/v1/unsubscribe?token=abc')).toBe('/v1/unsubscribe?token=*');
  });
});
