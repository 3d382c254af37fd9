-- Mortise lock table for H2 2.x. ${table} is the configured table name.
-- shared_holds, waiting_writer and writer_waits_until hold read (shared) locks and the marker of a
-- waiting writer; permits holds native semaphores' counts. A table of a previous version gets them
-- with ALTER TABLE (see docs/jdbc.md).
-- Rows are never deleted by Mortise: release keeps fencing_token.
CREATE TABLE IF NOT EXISTS ${table} (
    lock_key      VARCHAR(255) NOT NULL PRIMARY KEY,
    lock_owner    VARCHAR(255),
    fencing_token BIGINT       NOT NULL,
    acquired_at   TIMESTAMP(6) WITH TIME ZONE,
    expires_at    TIMESTAMP(6) WITH TIME ZONE,
    original_key  CHARACTER VARYING,
    shared_holds  CHARACTER VARYING ARRAY,
    waiting_writer VARCHAR(255),
    writer_waits_until TIMESTAMP(6) WITH TIME ZONE,
    permits       CHARACTER VARYING ARRAY
);

-- Wait records of deadlock detection (docs/jdbc.md, "Wait records"): one row per holder id while its
-- owner waits, expires_at from the database's clock; reads skip expired rows and every write deletes
-- up to 256 of them. The UNIQUE constraint is the sweep's index (expires_at first); it names itself, so
-- this one statement creates table and index.
CREATE TABLE IF NOT EXISTS ${table}_waits (
    holder_id     VARCHAR(16)  NOT NULL PRIMARY KEY,
    nonce         VARCHAR(32)  NOT NULL,
    record_text   CHARACTER VARYING NOT NULL,
    expires_at    TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    UNIQUE (expires_at, holder_id)
);
