/**
 * The outbox's migrations as plain SQL, in the shape @hireflow/db's
 * `defineSqlMigration` gives (a name and its statements), written here so the
 * packed package needs no workspace package.
 */
function defineSqlMigration(name: string, statements: string[]): { name: string; statements: string[] } {
  return { name, statements };
}

/** Channel the relay LISTENs on; a statement trigger NOTIFYs it when rows commit. */
export const OUTBOX_CHANNEL = 'outbox_inserted';

/**
 * The advisory lock a sleeping relay holds (exclusive, on its LISTEN
 * connection). A transaction writing outbox rows NOTIFYs only when it cannot
 * take it shared, i.e. while a relay sleeps: NOTIFY takes a database-wide lock
 * from the commit until the commit's WAL flush, so a NOTIFY per transaction
 * serialises every committing producer behind one fsync at a time.
 */
export const OUTBOX_RELAY_ASLEEP_LOCK = 7_364_221_001;

export const outboxMigrations = [
  defineSqlMigration('0001-outbox-create', [
    `CREATE TABLE outbox (
      id bigserial PRIMARY KEY,
      event_id uuid NOT NULL UNIQUE,
      topic text NOT NULL,
      type text NOT NULL,
      payload jsonb NOT NULL,
      traceparent text,
      tracestate text,
      baggage text,
      created_at timestamptz NOT NULL DEFAULT now(),
      sent_at timestamptz,
      attempts integer NOT NULL DEFAULT 0,
      last_error text
    )`,
    // The relay scans only what is pending; pruning scans only what was sent.
    'CREATE INDEX outbox_pending_idx ON outbox (id) WHERE sent_at IS NULL',
    'CREATE INDEX outbox_sent_at_idx ON outbox (sent_at) WHERE sent_at IS NOT NULL',
    // NOTIFY is delivered at commit (never on rollback), and Postgres folds
    // identical notifications of one transaction into one.
    `CREATE FUNCTION outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('${OUTBOX_CHANNEL}', '');
      RETURN NULL;
    END $$`,
    'CREATE TRIGGER outbox_notify AFTER INSERT ON outbox FOR EACH STATEMENT EXECUTE FUNCTION outbox_notify()',
  ]),
  defineSqlMigration('0002-outbox-retry-backoff', [
    // A row that fails to publish waits (full-jitter backoff) instead of
    // being retried every round at the head of the queue.
    'ALTER TABLE outbox ADD COLUMN next_attempt_at timestamptz',
  ]),
  defineSqlMigration('0003-outbox-event-log', [
    // What the relay published, kept for replays (docs/replay.md): append-only,
    // one row per event id, written in the transaction that marks the outbox
    // rows sent, so it holds published events only. Positions follow that order.
    `CREATE TABLE event_log (
      position bigserial PRIMARY KEY,
      event_id uuid NOT NULL UNIQUE,
      topic text NOT NULL,
      type text NOT NULL,
      payload jsonb NOT NULL,
      traceparent text,
      tracestate text,
      baggage text,
      event_time timestamptz NOT NULL,
      published_at timestamptz NOT NULL DEFAULT now()
    )`,
    // A replay reads by type in position order; pruning by publication time.
    'CREATE INDEX event_log_type_position_idx ON event_log (type, position)',
    'CREATE INDEX event_log_published_at_idx ON event_log (published_at)',
    // What was sent before the log existed and is not pruned yet (the last 7 days) starts it.
    `INSERT INTO event_log (event_id, topic, type, payload, traceparent, tracestate, baggage, event_time, published_at)
     SELECT event_id, topic, type, payload, traceparent, tracestate, baggage, (payload->>'time')::timestamptz, sent_at
       FROM outbox WHERE sent_at IS NOT NULL ORDER BY id`,
  ]),
  defineSqlMigration('0004-outbox-notify-only-a-sleeping-relay', [
    // The shared lock is held to the end of the writing transaction, so a
    // relay going to sleep (taking it exclusive) waits for the rows in flight
    // and sees them in the claim it makes before it waits.
    `CREATE OR REPLACE FUNCTION outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NOT pg_try_advisory_xact_lock_shared(${OUTBOX_RELAY_ASLEEP_LOCK}) THEN
        PERFORM pg_notify('${OUTBOX_CHANNEL}', '');
      END IF;
      RETURN NULL;
    END $$`,
  ]),
];
