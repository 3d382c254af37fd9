package dev.mortise.lock.spring.autoconfigure;

import javax.sql.DataSource;

/**
 * A data source that hides every getter of the one it wraps (its URL among them), and is no
 * wrapper: what start-up sees of an application's own opaque data source. Test support, shared by
 * the JDBC backend's and the fence guard's start-up tests.
 */
public record DataSourceWithoutGetters(DataSource target) implements DataSource {
    @Override
    public java.sql.Connection getConnection() throws java.sql.SQLException {
        return target.getConnection();
    }

    @Override
    public java.sql.Connection getConnection(String user, String password) throws java.sql.SQLException {
        return target.getConnection(user, password);
    }

    @Override
    public java.io.PrintWriter getLogWriter() {
        return null;
    }

    @Override
    public void setLogWriter(java.io.PrintWriter out) {
    }

    @Override
    public void setLoginTimeout(int seconds) {
    }

    @Override
    public int getLoginTimeout() {
        return 0;
    }

    @Override
    public java.util.logging.Logger getParentLogger() {
        return java.util.logging.Logger.getGlobal();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws java.sql.SQLException {
        throw new java.sql.SQLException("not a wrapper");
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
        return false;
    }
}
