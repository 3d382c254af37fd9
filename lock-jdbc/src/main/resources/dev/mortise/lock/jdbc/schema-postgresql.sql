-- Mortise lock table for PostgreSQL. ${table} is the configured table name (default mortise_locks).
-- shared_holds, waiting_writer and writer_waits_until hold read (shared) locks and the marker of a
-- waiting writer; a table of the previous version gets them with ALTER TABLE (see docs/jdbc.md).
-- waiters records who waits for the key ({owner: expiry µs}), so a release sends NOTIFY only then;
-- a table without it keeps working (every release notifies) until ALTER TABLE … ADD COLUMN waiters JSONB.
-- permits keeps a native semaphore's stored count and each permit hold's count
-- ({"limit": n, "holds": {owner: count}}; NULL once the last holder leaves); a table without it keeps
-- working for locks until ALTER TABLE … ADD COLUMN permits JSONB.
-- Rows are never deleted by Mortise: release clears lock_owner and expires_at and keeps
-- fencing_token, so tokens of one key only ever grow. COLLATE "C" makes key equality
-- exact byte equality whatever the database's default collation is.
CREATE TABLE IF NOT EXISTS ${table} (
    lock_key      VARCHAR(255) COLLATE "C" NOT NULL PRIMARY KEY,
    lock_owner    VARCHAR(255),
    fencing_token BIGINT       NOT NULL,
    acquired_at   TIMESTAMP(6) WITH TIME ZONE,
    expires_at    TIMESTAMP(6) WITH TIME ZONE,
    original_key  TEXT,
    shared_holds  JSONB,
    waiting_writer VARCHAR(255),
    writer_waits_until TIMESTAMP(6) WITH TIME ZONE,
    waiters       JSONB,
    permits       JSONB
);

-- Wait records of deadlock detection (docs/jdbc.md, "Wait records"): one row per holder id while its
-- owner waits, expires_at from the database's clock; reads skip expired rows and every write deletes
-- up to 256 of them. The UNIQUE constraint is the sweep's index (expires_at first); it names itself, so
-- this one statement creates table and index.
CREATE TABLE IF NOT EXISTS ${table}_waits (
    holder_id     VARCHAR(16)  NOT NULL PRIMARY KEY,
    nonce         VARCHAR(32)  NOT NULL,
    record_text   TEXT         NOT NULL,
    expires_at    TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    UNIQUE (expires_at, holder_id)
);
