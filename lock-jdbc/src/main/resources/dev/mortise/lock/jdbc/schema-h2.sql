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
