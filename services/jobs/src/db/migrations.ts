import { defineSqlMigration } from '@hireflow/db';

export const jobsMigrations = [
  defineSqlMigration('1000-jobs-tenants-and-keys', [
    `CREATE TABLE tenant (
      id uuid PRIMARY KEY,
      name text NOT NULL UNIQUE,
      contact_email text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`,
    `CREATE TABLE api_key (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenant (id),
      key_hash text NOT NULL UNIQUE,
      created_at timestamptz NOT NULL DEFAULT now(),
      revoked_at timestamptz
    )`,
    'CREATE INDEX api_key_tenant_idx ON api_key (tenant_id)',
  ]),
  defineSqlMigration('1001-jobs-postings-candidates-matches', [
    `CREATE TABLE job_posting (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenant (id),
      title text NOT NULL,
      description text NOT NULL,
      skills jsonb NOT NULL,
      location text NOT NULL,
      remote boolean NOT NULL,
      contact_email text NOT NULL,
      status text NOT NULL CHECK (status IN ('processing', 'matched', 'closed')),
      match_count integer,
      matches_computed_at timestamptz,
      logo jsonb,
      posted_at timestamptz NOT NULL,
      close_at timestamptz NOT NULL,
      closed_at timestamptz,
      updated_at timestamptz NOT NULL
    )`,
    'CREATE INDEX job_posting_tenant_idx ON job_posting (tenant_id, posted_at DESC, id DESC)',
    `CREATE TABLE candidate (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenant (id),
      name text NOT NULL,
      email text NOT NULL,
      headline text NOT NULL,
      skills jsonb NOT NULL,
      location text NOT NULL,
      created_at timestamptz NOT NULL
    )`,
    // Unique per tenant by email, case-insensitively: a client retry never registers twice.
    'CREATE UNIQUE INDEX candidate_tenant_email_idx ON candidate (tenant_id, lower(email))',
    'CREATE INDEX candidate_tenant_created_idx ON candidate (tenant_id, created_at DESC, id DESC)',
    `CREATE TABLE job_match (
      match_id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      job_id uuid NOT NULL,
      candidate_id uuid NOT NULL,
      score double precision NOT NULL,
      found_at timestamptz NOT NULL,
      UNIQUE (job_id, candidate_id)
    )`,
    'CREATE INDEX job_match_job_idx ON job_match (job_id, score DESC, match_id)',
    'CREATE INDEX job_match_candidate_idx ON job_match (candidate_id, score DESC, match_id)',
  ]),
  defineSqlMigration('1002-jobs-overdue-postings-index', [
    // The auto-close sweep scans only open postings by their close time.
    "CREATE INDEX job_posting_open_close_at_idx ON job_posting (close_at) WHERE status <> 'closed'",
  ]),
  defineSqlMigration('1003-jobs-media-images', [
    // media.processed.v1 applies only when its upload is newer than the image shown.
    'ALTER TABLE job_posting ADD COLUMN logo_uploaded_at timestamptz',
    'ALTER TABLE candidate ADD COLUMN photo jsonb, ADD COLUMN photo_uploaded_at timestamptz',
  ]),
  defineSqlMigration('1004-jobs-matches-best-first-then-earliest', [
    // The listings' order: best score, then earliest found, then match id.
    "UPDATE job_match SET found_at = date_trunc('milliseconds', found_at)",
    'DROP INDEX job_match_job_idx',
    'DROP INDEX job_match_candidate_idx',
    'CREATE INDEX job_match_job_idx ON job_match (job_id, score DESC, found_at, match_id)',
    'CREATE INDEX job_match_candidate_idx ON job_match (candidate_id, score DESC, found_at, match_id)',
  ]),
];
