-- The business table. last_fencing_token is the token of the last write (informational: the
-- fence guard of lock-fencing checks tokens, in its own table mortise_fences).
CREATE TABLE IF NOT EXISTS accounts (
    id                 VARCHAR(64) PRIMARY KEY,
    balance            BIGINT      NOT NULL,
    last_fencing_token BIGINT      NOT NULL DEFAULT 0
);
