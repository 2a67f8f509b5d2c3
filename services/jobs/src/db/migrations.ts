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
  defineSqlMigration('1005-jobs-webhooks', [
    // Webhook endpoints of a tenant (docs/webhooks.md); the secret signs deliveries, so it is kept as issued.
    `CREATE TABLE webhook_endpoint (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenant (id),
      url text NOT NULL,
      description text NOT NULL DEFAULT '',
      events jsonb NOT NULL,
      enabled boolean NOT NULL DEFAULT true,
      disabled_reason text,
      secret text NOT NULL,
      previous_secret text,
      previous_secret_expires_at timestamptz,
      consecutive_failures integer NOT NULL DEFAULT 0,
      failing_since timestamptz,
      circuit_open_until timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`,
    'CREATE INDEX webhook_endpoint_tenant_idx ON webhook_endpoint (tenant_id, created_at DESC, id DESC)',
    // One delivery per (endpoint, event): a redelivered event creates none again.
    `CREATE TABLE webhook_delivery (
      id uuid PRIMARY KEY,
      endpoint_id uuid NOT NULL REFERENCES webhook_endpoint (id) ON DELETE CASCADE,
      tenant_id uuid NOT NULL,
      event_id text NOT NULL,
      type text NOT NULL,
      body text NOT NULL,
      traceparent text,
      status text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
      attempts integer NOT NULL DEFAULT 0,
      last_status integer,
      last_latency_ms integer,
      last_error text,
      next_attempt_at timestamptz,
      created_at timestamptz NOT NULL,
      UNIQUE (endpoint_id, event_id)
    )`,
    'CREATE INDEX webhook_delivery_endpoint_idx ON webhook_delivery (endpoint_id, created_at DESC, id DESC)',
    "CREATE INDEX webhook_delivery_pending_idx ON webhook_delivery (next_attempt_at) WHERE status = 'pending'",
    `CREATE TABLE webhook_attempt (
      id bigserial PRIMARY KEY,
      delivery_id uuid NOT NULL REFERENCES webhook_delivery (id) ON DELETE CASCADE,
      attempted_at timestamptz NOT NULL,
      status_code integer,
      latency_ms integer NOT NULL,
      error text,
      response_body text NOT NULL DEFAULT ''
    )`,
    'CREATE INDEX webhook_attempt_delivery_idx ON webhook_attempt (delivery_id, id)',
  ]),
  defineSqlMigration('1006-jobs-webhook-delivery-leases', [
    // The delivery worker claims due deliveries from the table (webhooks/store.ts, claimDueDeliveries):
    // a claimed delivery holds one of its endpoint's slots until its attempt is recorded or its lease ends.
    'ALTER TABLE webhook_delivery ADD COLUMN leased_until timestamptz',
    // Each endpoint's due deliveries, oldest first (one index probe per endpoint a claim looks at).
    "CREATE INDEX webhook_delivery_due_idx ON webhook_delivery (endpoint_id, next_attempt_at, created_at) WHERE status = 'pending'",
    // The slots taken: deliveries in flight (or of a worker that died, until their lease ends).
    'CREATE INDEX webhook_delivery_leased_idx ON webhook_delivery (endpoint_id, leased_until) WHERE leased_until IS NOT NULL',
  ]),
];
