/**
 * The JDBC backend's statements and plumbing (internal: no compatibility promise; public types here
 * are public only for the backend's other packages). Per dialect and kind of hold, one class of
 * statements behind an interface ({@code LockSql} exclusive, {@code SharedSql} readers,
 * {@code WaitSql} what waits leave, {@code PermitSql} semaphores, {@code BatchSql} multi-key,
 * {@code InspectSql}), built together by {@code Dialects} into a {@code DialectSql}; each dialect's
 * shared fragments ({@code PostgresExpressions}, {@code MySqlExpressions}, {@code H2Expressions})
 * and its one reading of "granted by this statement" ({@code PostgresAnswers}, {@code MySqlAnswers},
 * {@code H2Merges}). Beside them: the connection handling ({@code JdbcCalls}), the waits
 * ({@code JdbcWait}; one loop, {@code JdbcWaitSteps}, run blocking or asynchronously by the SPI's
 * {@code WaitDriver}) and their wake-ups ({@code ReleaseSignals}, PostgreSQL's {@code PgReleaseListener}),
 * the clean-up of unanswered grants ({@code UnconfirmedGrants}), the table ({@code Schema},
 * {@code TableName}) and the key column ({@code StoredKey}); and the wait records of deadlock
 * detection in the table beside it ({@code JdbcWaitRecords}, over one {@code WaitRecordSql} per dialect).
 */
package dev.mortise.lock.jdbc.internal;
