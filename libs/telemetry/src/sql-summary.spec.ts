import { describe, expect, it } from 'vitest';
import { summarizeSql } from './sql-summary.ts';

describe('summarizeSql', () => {
  it('names each operation and the tables it reads or writes, in the order written', () => {
    expect(summarizeSql('SELECT * FROM wuser_table')).toBe('SELECT wuser_table');
    expect(
      summarizeSql(
        'INSERT INTO shipping_details (id, order_id) SELECT o.id, $1 FROM orders AS o WHERE o.id = $2',
      ),
    ).toBe('INSERT shipping_details SELECT orders');
    expect(summarizeSql('select "j0".* from "job_posting" as "j0" where "j0"."id" = ? limit ?')).toBe(
      'SELECT job_posting',
    );
    expect(summarizeSql('SELECT * FROM songs s, artists AS a WHERE s.artist_id = a.id')).toBe(
      'SELECT songs artists',
    );
    expect(
      summarizeSql(
        'select m.* from job_match m inner join candidate c on c.id = m.candidate_id left join public.x on true',
      ),
    ).toBe('SELECT job_match candidate public.x');
    expect(summarizeSql('UPDATE outbox SET sent_at = now() FROM claimed WHERE outbox.id = claimed.id')).toBe(
      'UPDATE outbox claimed',
    );
    expect(summarizeSql('delete from processed_message where key = $1')).toBe('DELETE processed_message');
  });

  it('leaves out CTE names, functions, locking clauses, upserts and SELECTs that read no table', () => {
    // The posting and its outbox row in one statement (services/jobs' insertPostingWithEvent).
    expect(
      summarizeSql(`WITH posting AS (
         INSERT INTO job_posting (id, tenant_id) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING RETURNING id
       )
       INSERT INTO outbox (event_id, topic) SELECT $3::uuid, $4 FROM posting RETURNING event_id`),
    ).toBe('INSERT job_posting INSERT outbox');
    expect(
      summarizeSql(
        'INSERT INTO outbox (event_id) SELECT $1 ON CONFLICT (event_id) DO UPDATE SET payload = EXCLUDED.payload',
      ),
    ).toBe('INSERT outbox');
    expect(summarizeSql('SELECT id FROM job FOR NO KEY UPDATE SKIP LOCKED')).toBe('SELECT job');
    expect(summarizeSql('SELECT extract(epoch FROM now() - created_at) FROM upload')).toBe('SELECT upload');
    expect(
      summarizeSql('SELECT * FROM unnest($1::text[]) AS k LEFT JOIN idempotency_key i ON i.key = k'),
    ).toBe('SELECT idempotency_key');
    expect(summarizeSql('SELECT pg_advisory_xact_lock($1)')).toBe('SELECT');
    expect(summarizeSql('select 1')).toBe('SELECT');
  });

  it('names other statements by their first word, and their table where they have one', () => {
    expect(summarizeSql('BEGIN')).toBe('BEGIN');
    expect(summarizeSql('LISTEN "hireflow_outbox"')).toBe('LISTEN');
    expect(summarizeSql("set local statement_timeout = '5s'")).toBe('SET');
    expect(summarizeSql('TRUNCATE TABLE outbox')).toBe('TRUNCATE outbox');
    expect(summarizeSql('CREATE TABLE IF NOT EXISTS seen (id text)')).toBe('CREATE seen');
    expect(summarizeSql('CREATE INDEX ON seen (id)')).toBe('CREATE');
    expect(summarizeSql('   ')).toBeUndefined();
  });

  it('takes nothing from a literal, a comment or a quoted body, so no value reaches a span name', () => {
    expect(
      summarizeSql(
        "/* from secrets */ SELECT 'from people' AS x, E'it''s from \\' here', $$ from more $$ -- from comment\n FROM t",
      ),
    ).toBe('SELECT t');
    expect(summarizeSql(`INSERT INTO "odd ""name""" VALUES ('ada@example.test')`)).toBe('INSERT odd "name"');
  });
});
