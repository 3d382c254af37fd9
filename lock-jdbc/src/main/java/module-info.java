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

    // The DDL resources (schema-*.sql) live in this package, and a module's resources are found by a
    // class loader (the backend's own reading, and schema tools given JdbcDialect.schemaResource())
    // only in packages open to every module.
    opens dev.mortise.lock.jdbc;
}
