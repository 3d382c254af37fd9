-- Mortise lock table for MySQL 8.0.4+ and MariaDB 10.6+ (JSON_TABLE). ${table} is the configured table name.
-- lock_key is VARBINARY: exact byte equality, where every utf8mb4 collation would fold case
-- or ignore trailing spaces and make two keys one lock. Times are UTC (UTC_TIMESTAMP(6)),
-- so sessions in different time zones agree on expiry. Rows are never deleted by Mortise.
-- shared_holds, waiting_writer and writer_waits_until hold read (shared) locks and the marker of a
-- waiting writer; permits holds native semaphores' counts. A table of a previous version gets them
-- with ALTER TABLE (see docs/jdbc.md).
CREATE TABLE IF NOT EXISTS ${table} (
    lock_key      VARBINARY(255) NOT NULL PRIMARY KEY,
    lock_owner    VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    fencing_token BIGINT       NOT NULL,
    acquired_at   DATETIME(6),
    expires_at    DATETIME(6),
    original_key  TEXT CHARACTER SET utf8mb4,
    shared_holds  JSON,
    waiting_writer VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    writer_waits_until DATETIME(6),
    permits       JSON
) ENGINE = InnoDB;

-- Wait records of deadlock detection (docs/jdbc.md, "Wait records"): one row per holder id while its
-- owner waits, expires_at from the database's clock (UTC); reads skip expired rows and every write
-- deletes up to 256 of them, by the index on expires_at.
CREATE TABLE IF NOT EXISTS ${table}_waits (
    holder_id     VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY,
    nonce         VARCHAR(32) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    record_text   TEXT CHARACTER SET utf8mb4 NOT NULL,
    expires_at    DATETIME(6) NOT NULL,
    INDEX (expires_at)
) ENGINE = InnoDB;
