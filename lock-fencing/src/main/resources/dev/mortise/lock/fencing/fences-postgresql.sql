-- Mortise fence table for PostgreSQL. ${table} is the configured table name (default mortise_fences).
-- One row per fenced resource: the highest fencing token that has written to it. Rows are never
-- deleted by Mortise (a deleted row would let a stale token write again). COLLATE "C" makes
-- resource equality exact byte equality whatever the database's default collation is.
CREATE TABLE IF NOT EXISTS ${table} (
    resource VARCHAR(255) COLLATE "C" NOT NULL PRIMARY KEY,
    token    BIGINT       NOT NULL
);
