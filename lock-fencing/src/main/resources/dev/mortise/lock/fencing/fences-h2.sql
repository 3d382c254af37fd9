-- Mortise fence table for H2 2.x. ${table} is the configured table name (default mortise_fences).
-- Rows are never deleted by Mortise (a deleted row would let a stale token write again).
CREATE TABLE IF NOT EXISTS ${table} (
    resource VARCHAR(255) NOT NULL PRIMARY KEY,
    token    BIGINT       NOT NULL
);
