-- Mortise fence table for MySQL 8 and MariaDB 10.6+. ${table} is the configured table name.
-- resource is VARBINARY holding the UTF-8 bytes of the name: exact byte equality, where every
-- utf8mb4 collation would fold case or ignore trailing spaces and make two resources one fence.
-- Rows are never deleted by Mortise (a deleted row would let a stale token write again).
CREATE TABLE IF NOT EXISTS ${table} (
    resource VARBINARY(255) NOT NULL PRIMARY KEY,
    token    BIGINT         NOT NULL
) ENGINE = InnoDB;
