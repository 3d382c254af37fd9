-- The business table. last_fencing_token is the highest lock token that wrote the row:
-- writes carrying a lower token are refused (UPDATE ... WHERE last_fencing_token < ?).
CREATE TABLE IF NOT EXISTS accounts (
    id                 VARCHAR(64) PRIMARY KEY,
    balance            BIGINT      NOT NULL,
    last_fencing_token BIGINT      NOT NULL DEFAULT 0
);
