import { defineSqlMigration } from '@hireflow/db';

/**
 * An inbox handler's stored result (processed_message, keyed by event id) is
 * its decision, `{ requests, refused }`; the version before 2026-11-30
 * (65d25ec) stored the list of requests alone. Converted once, so a
 * redelivery of an event handled then still queues its emails, and the
 * handler reads one shape. Email sends store an object (never a list), so
 * only those results match.
 */
export const INBOX_RESULTS_AS_DECISIONS = `UPDATE processed_message
   SET result = jsonb_build_object('requests', result, 'refused', '[]'::jsonb)
 WHERE jsonb_typeof(result) = 'array'`;

export const notificationsMigrations = [
  defineSqlMigration('1000-notifications-projections-and-log', [
    // Projections of other services' state, fed by their events: only what an email needs.
    `CREATE TABLE candidate_projection (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      name text NOT NULL,
      email text NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`,
    `CREATE TABLE posting_projection (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      title text NOT NULL,
      contact_email text NOT NULL,
      posted_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`,
    // One row per email the service decided to send, keyed by its intent key.
    `CREATE TABLE notification_log (
      id bigserial PRIMARY KEY,
      key text NOT NULL UNIQUE,
      tenant_id uuid NOT NULL,
      event_id uuid NOT NULL,
      recipient text NOT NULL,
      template text NOT NULL CHECK (template IN ('welcome', 'match', 'job-matched')),
      params jsonb NOT NULL,
      message_id text NOT NULL,
      status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'sent', 'failed')),
      attempts integer NOT NULL DEFAULT 0,
      provider_message_id text,
      error text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      sent_at timestamptz
    )`,
    'CREATE INDEX notification_log_recipient_idx ON notification_log (lower(recipient), id DESC)',
  ]),
  defineSqlMigration('1001-notifications-log-by-status-age', [
    // The stuck-intent sweep (queued, oldest first) and retention (sent/failed, oldest first).
    'CREATE INDEX notification_log_status_updated_idx ON notification_log (status, updated_at)',
  ]),
  defineSqlMigration('1002-notifications-intent-horizon', [
    // Each intent's record is kept until no event can ask for it again
    // (modules/intents/retention.ts); rows from before this migration
    // get the longest horizon a posting's summary can need.
    'ALTER TABLE notification_log ADD COLUMN keep_until timestamptz',
    "UPDATE notification_log SET keep_until = created_at + interval '400 days'",
    'ALTER TABLE notification_log ALTER COLUMN keep_until SET NOT NULL',
    "CREATE INDEX notification_log_keep_until_idx ON notification_log (keep_until) WHERE status <> 'queued'",
  ]),
  defineSqlMigration('1003-notifications-abuse-controls', [
    // suppressed: never sent (the address unsubscribed, or a cap refused it);
    // held: over its tenant's daily quota, sent once a later day's quota allows.
    'ALTER TABLE notification_log DROP CONSTRAINT notification_log_status_check',
    `ALTER TABLE notification_log ADD CONSTRAINT notification_log_status_check
       CHECK (status IN ('queued', 'sent', 'failed', 'suppressed', 'held'))`,
    // Addresses that asked for no more email (RFC 8058 one-click unsubscribe), lowercased.
    `CREATE TABLE suppression (
      address text PRIMARY KEY,
      reason text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`,
    // Emails each tenant had recorded per UTC day, against TENANT_DAILY_EMAIL_QUOTA.
    `CREATE TABLE tenant_email_quota (
      tenant_id uuid NOT NULL,
      day date NOT NULL,
      used integer NOT NULL,
      PRIMARY KEY (tenant_id, day)
    )`,
    // The welcome cap counts an address's recent welcome emails.
    "CREATE INDEX notification_log_welcome_idx ON notification_log (lower(recipient), created_at) WHERE template = 'welcome'",
    "CREATE INDEX notification_log_held_idx ON notification_log (created_at) WHERE status = 'held'",
  ]),
  defineSqlMigration('1004-notifications-inbox-results-are-decisions', [INBOX_RESULTS_AS_DECISIONS]),
  defineSqlMigration('1005-notifications-webhook-disabled-template', [
    // webhook.endpoint.disabled.v1 tells the tenant's contact (docs/webhooks.md).
    `ALTER TABLE notification_log DROP CONSTRAINT notification_log_template_check,
       ADD CONSTRAINT notification_log_template_check
       CHECK (template IN ('welcome', 'match', 'job-matched', 'webhook-disabled'))`,
  ]),
  defineSqlMigration('1006-notifications-recipient-daily-cap', [
    // Emails each address was sent (or queued) per UTC day, whatever the
    // tenant, against EMAILS_PER_ADDRESS_PER_DAY. The address as a SHA-256
    // digest of its lowercase form: the cap needs no address in clear.
    `CREATE TABLE recipient_email_quota (
      address_digest bytea NOT NULL,
      day date NOT NULL,
      used integer NOT NULL,
      PRIMARY KEY (address_digest, day)
    )`,
  ]),
  defineSqlMigration('1007-notifications-contact-confirmation', [
    // Whether a posting's contact is its tenant's own (job.posted.v1's
    // contactVerified); postings projected before know nothing of it, so
    // their contact confirms like any other address.
    'ALTER TABLE posting_projection ADD COLUMN contact_verified boolean NOT NULL DEFAULT false',
    // Addresses a tenant had confirmed through the link of a confirmation email, as digests.
    `CREATE TABLE verified_contact (
      tenant_id uuid NOT NULL,
      address_digest bytea NOT NULL,
      verified_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, address_digest)
    )`,
    // unconfirmed: a summary waiting for its address to confirm.
    'ALTER TABLE notification_log DROP CONSTRAINT notification_log_status_check',
    `ALTER TABLE notification_log ADD CONSTRAINT notification_log_status_check
       CHECK (status IN ('queued', 'sent', 'failed', 'suppressed', 'held', 'unconfirmed'))`,
    'ALTER TABLE notification_log DROP CONSTRAINT notification_log_template_check',
    `ALTER TABLE notification_log ADD CONSTRAINT notification_log_template_check
       CHECK (template IN ('welcome', 'match', 'job-matched', 'webhook-disabled', 'contact-confirmation'))`,
    `CREATE INDEX notification_log_unconfirmed_idx ON notification_log (tenant_id, lower(recipient))
       WHERE status = 'unconfirmed'`,
  ]),
  defineSqlMigration('1008-notifications-send-claim-on-the-log', [
    // The email worker's claim on a send lives on the log row itself (docs/notifications.md,
    // "Exactly once"): claim and read in one statement, record and release in one.
    // Sends claimed before this change are in processed_message: the new claim counts a
    // live one there as a holder and takes an expired one over with the grace (intents/store.ts).
    // Old workers do not see the new claim: drain them first (docs/deploy.md).
    'ALTER TABLE notification_log ADD COLUMN send_token uuid, ADD COLUMN send_lease_until timestamptz',
  ]),
  defineSqlMigration('1009-notifications-log-room-for-hot-updates', [
    // Every email's row is updated twice after its insert: the send's claim (send_token,
    // send_lease_until: no index has them, so a HOT update, no index entry, when the row's page
    // has room) and the record of the send (status and updated_at are indexed: a new entry in
    // each index whatever the room). Packed full, a page had no room for the claim's new
    // version, and the claim wrote an entry in the table's five indexes. Pages filled from now
    // on keep a fifth free (docs/performance.md, "Round 3"); rows already written stay as they are.
    'ALTER TABLE notification_log SET (fillfactor = 80)',
  ]),
];
