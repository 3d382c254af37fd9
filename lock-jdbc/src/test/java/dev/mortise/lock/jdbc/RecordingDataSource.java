package dev.mortise.lock.jdbc;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Logger;

/**
 * A real data source seen through a recording lens: every SQL text prepared and every
 * parameter bound is kept, so a test can check what the backend sends. Calls go through
 * unchanged to the real driver and server.
 */
final class RecordingDataSource implements DataSource {

    final List<String> statements = new CopyOnWriteArrayList<>();
    final List<Object> parameters = new CopyOnWriteArrayList<>();
    private final DataSource target;

    RecordingDataSource(DataSource target) {
        this.target = target;
    }

    @Override
    public Connection getConnection() throws SQLException {
        return wrap(target.getConnection());
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
        return wrap(target.getConnection(user, password));
    }

    private Connection wrap(Connection connection) {
        InvocationHandler handler = (proxy, method, args) -> {
            Object result = invoke(connection, method, args);
            if (method.getName().equals("prepareStatement") && result instanceof PreparedStatement statement) {
                statements.add((String) args[0]);
                return recording(statement);
            }
            return result;
        };
        return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[]{Connection.class}, handler);
    }

    private PreparedStatement recording(PreparedStatement statement) {
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.getName().startsWith("set") && args != null && args.length == 2 && args[0] instanceof Integer
                    && !method.getName().equals("setQueryTimeout")) {
                parameters.add(args[1]);
            }
            return invoke(statement, method, args);
        };
        return (PreparedStatement) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[]{PreparedStatement.class}, handler);
    }

    private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return target.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        target.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        target.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return target.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return target.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        return target.unwrap(type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) throws SQLException {
        return target.isWrapperFor(type);
    }
}
