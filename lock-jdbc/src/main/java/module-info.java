/**
 * The JDBC backend. Exports {@code dev.mortise.lock.jdbc} (API) only; {@code internal} and
 * {@code internal.hold} are not exported. The PostgreSQL driver is optional
 * ({@code requires static}): it is used for {@code LISTEN}/{@code NOTIFY} wake-ups when present.
 */
@SuppressWarnings("requires-automatic")
module dev.mortise.lock.jdbc {
    requires transitive dev.mortise.lock;
    requires transitive java.sql;
    requires static org.postgresql.jdbc;
    requires org.slf4j;

    exports dev.mortise.lock.jdbc;
}
