import { defineSqlMigration } from '@hireflow/db';

export const mediaMigrations = [
  defineSqlMigration('1000-media-api-keys', [
    `CREATE TABLE api_key (
      key_id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      key_hash text,
      issued_at timestamptz,
      revoked_at timestamptz,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`,
    'CREATE UNIQUE INDEX api_key_hash_idx ON api_key (key_hash) WHERE key_hash IS NOT NULL',
  ]),
  defineSqlMigration('1001-media-uploads', [
    `CREATE TABLE upload (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      status text NOT NULL CHECK (status IN ('pending', 'ready', 'failed')),
      owner_type text CHECK (owner_type IN ('job', 'candidate')),
      owner_id uuid,
      content_type text NOT NULL,
      size_bytes integer NOT NULL,
      width integer NOT NULL,
      height integer NOT NULL,
      variants jsonb,
      reason text,
      created_at timestamptz NOT NULL,
      finished_at timestamptz,
      CHECK ((owner_type IS NULL) = (owner_id IS NULL))
    )`,
    // The sweep scans only pending uploads, oldest first.
    "CREATE INDEX upload_pending_idx ON upload (created_at) WHERE status = 'pending'",
  ]),
  defineSqlMigration('1002-media-upload-quota-and-expiry', [
    // The storage quota sums a tenant's originals at each upload.
    'CREATE INDEX upload_tenant_idx ON upload (tenant_id) INCLUDE (size_bytes)',
    // Uploads without an owner expire (MEDIA_UNATTACHED_TTL_MS): the expiry scans them oldest first.
    'CREATE INDEX upload_unattached_idx ON upload (created_at) WHERE owner_id IS NULL',
  ]),
  defineSqlMigration('1003-media-known-owners', [
    // The postings and candidates media has heard of (job.posted.v1, candidate.registered.v1):
    // ids only, keyed by tenant, so another tenant's event never vouches for an owner.
    `CREATE TABLE known_owner (
      tenant_id uuid NOT NULL,
      owner_type text NOT NULL CHECK (owner_type IN ('job', 'candidate')),
      owner_id uuid NOT NULL,
      known_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, owner_type, owner_id)
    )`,
    // An upload naming an owner media does not know (yet) expires like one without an owner,
    // unless the owner's event arrives first. The default keeps every existing upload (and any
    // an API process of the previous release inserts during a rolling deploy) attached, as before.
    'ALTER TABLE upload ADD COLUMN owner_pending boolean NOT NULL DEFAULT false',
    'ALTER TABLE upload ADD CONSTRAINT upload_owner_pending_check CHECK (NOT owner_pending OR owner_id IS NOT NULL)',
    // The expiry scans both kinds oldest first; the owner's event finds its pending uploads.
    'CREATE INDEX upload_expirable_idx ON upload (created_at) WHERE owner_id IS NULL OR owner_pending',
    'CREATE INDEX upload_owner_pending_idx ON upload (tenant_id, owner_id) WHERE owner_pending',
    'DROP INDEX upload_unattached_idx',
  ]),
];
