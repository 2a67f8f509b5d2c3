import { defineSqlMigration } from '@hireflow/db';

export const matchingMigrations = [
  defineSqlMigration('1000-matching-profiles-and-matches', [
    // Every change a worker's in-memory index must learn (a vector stored, a
    // posting opened or closed) takes the next value, under the tenant's lock:
    // within a tenant, sequence order is commit order (docs/matching.md).
    'CREATE SEQUENCE change_seq',
    // A posting as matching needs it: its text (to re-embed after a model
    // change), its vector and canonical skills, and where its matching stands.
    `CREATE TABLE posting (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      status text NOT NULL CHECK (status IN ('pending', 'open', 'closed')),
      title text NOT NULL DEFAULT '',
      description text NOT NULL DEFAULT '',
      skills jsonb NOT NULL DEFAULT '[]',
      model_id text,
      vector bytea,
      canonical_skills jsonb,
      seq bigint,
      match_count integer NOT NULL DEFAULT 0,
      computed_at timestamptz,
      event_id uuid,
      posted_at timestamptz,
      closed_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (tenant_id, id),
      CHECK (status <> 'open' OR vector IS NOT NULL)
    )`,
    'CREATE INDEX posting_tenant_seq_idx ON posting (tenant_id, seq) WHERE seq IS NOT NULL',
    "CREATE INDEX posting_pending_idx ON posting (created_at) WHERE status = 'pending'",
    // No name, no email: matching never reads them (docs/matching.md).
    `CREATE TABLE candidate (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      headline text NOT NULL,
      skills jsonb NOT NULL,
      model_id text,
      vector bytea,
      canonical_skills jsonb,
      seq bigint,
      computed_at timestamptz,
      event_id uuid NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (tenant_id, id)
    )`,
    'CREATE INDEX candidate_tenant_seq_idx ON candidate (tenant_id, seq) WHERE seq IS NOT NULL',
    'CREATE INDEX candidate_uncomputed_idx ON candidate (created_at) WHERE computed_at IS NULL',
    // A match is a fact, found once: unique per pair, and both sides of one
    // tenant (the keys include it).
    `CREATE TABLE posting_match (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      posting_id uuid NOT NULL,
      candidate_id uuid NOT NULL,
      score double precision NOT NULL CHECK (score >= 0 AND score <= 1),
      found_at timestamptz NOT NULL,
      UNIQUE (posting_id, candidate_id),
      FOREIGN KEY (tenant_id, posting_id) REFERENCES posting (tenant_id, id),
      FOREIGN KEY (tenant_id, candidate_id) REFERENCES candidate (tenant_id, id)
    )`,
    'CREATE INDEX posting_match_best_idx ON posting_match (posting_id, score DESC, found_at, id)',
    'CREATE INDEX posting_match_candidate_idx ON posting_match (candidate_id)',
  ]),
];
