package dev.mortise.lock.chaos;

import dev.mortise.lock.tck.server.ServerProcess;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A lock-tck server launcher ({@link ServerProcess}: Redis, PostgreSQL) run with extra
 * environment variables - the clock offset of {@link FakeClock.OffsetFile} - which the
 * launchers themselves cannot set. It runs the wrapped launcher's own command, prepared and
 * probed by the wrapped launcher, under {@code env K=V ...} (after {@code setpriv ... --} when
 * the server runs as another user, so the preload library is loaded by the server itself).
 *
 * <p>The launchers' {@code command()}, {@code prepare()}, {@code isReady()} and
 * {@code stopSignal()} are protected, so they are called by reflection: lock-chaos may not
 * change lock-tck. An {@code environment} hook on {@code ServerProcess} would replace this class.
 * Not thread-safe, as {@link ServerProcess}.
 */
final class ClockJumpServer extends ServerProcess {

    private final ServerProcess inner;
    private final Map<String, String> environment;

    ClockJumpServer(ServerProcess inner, Map<String, String> environment) {
        super("clock-jump-" + inner.getClass().getSimpleName(), inner.port());
        this.inner = inner;
        this.environment = Map.copyOf(environment);
    }

    /** The wrapped launcher (its own client helpers: {@code RedisServer.command}, {@code jdbcUrl}). */
    ServerProcess inner() {
        return inner;
    }

    @Override
    @SuppressWarnings("unchecked")
    protected List<String> command() {
        List<String> command = new ArrayList<>((List<String>) call("command"));
        List<String> env = new ArrayList<>(List.of("env"));
        environment.forEach((k, v) -> env.add(k + "=" + v));
        int at = command.get(0).endsWith("setpriv") ? command.indexOf("--") + 1 : 0;
        command.addAll(at, env);
        return command;
    }

    @Override
    protected void prepare() {
        call("prepare");
    }

    @Override
    protected boolean isReady() {
        return (Boolean) call("isReady");
    }

    @Override
    protected String stopSignal() {
        return (String) call("stopSignal");
    }

    @Override
    public void close() {
        super.close();
        inner.close();
    }

    private Object call(String method) {
        try {
            Method m = findMethod(inner.getClass(), method);
            m.setAccessible(true);
            return m.invoke(inner);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IllegalStateException(inner + "." + method + "() failed: " + e.getCause(), e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot call " + inner.getClass().getName() + "." + method
                    + "() to run it under a jumping clock (lock-tck's ServerProcess changed?): " + e, e);
        }
    }

    private static Method findMethod(Class<?> type, String name) throws NoSuchMethodException {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            try {
                return c.getDeclaredMethod(name);
            } catch (NoSuchMethodException e) {
                // look in the superclass
            }
        }
        throw new NoSuchMethodException(type.getName() + "." + name + "()");
    }
}
