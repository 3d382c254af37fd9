package dev.mortise.lock.test;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

import java.lang.reflect.Constructor;

/**
 * JUnit 5 extension that injects a {@link TestLockClient} into test methods and
 * {@code @BeforeEach}/{@code @AfterEach} methods: one per test (the same instance for every
 * parameter of that test), on a server and {@link ManualTicker} of its own, closed after the
 * test. Use it through {@link MortiseLockTest} or {@code @ExtendWith(MortiseLockExtension.class)}.
 *
 * <pre>{@code
 * @MortiseLockTest
 * class OrderServiceTest {
 *     @Test
 *     void refusesAStaleWrite(TestLockClient locks) { ... locks.advance(Duration.ofMinutes(1)); ... }
 * }
 * }</pre>
 *
 * For other settings (a lease, listeners) build one with {@link TestLockClient#builder()} and
 * close it yourself. Constructor injection is refused: a client made for the class would
 * outlive each test.
 */
public final class MortiseLockExtension implements ParameterResolver, AfterEachCallback {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(MortiseLockExtension.class);
    private static final String CLIENT = "client";

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == TestLockClient.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        if (parameter.getDeclaringExecutable() instanceof Constructor<?>) {
            throw new ParameterResolutionException("MortiseLockExtension injects a TestLockClient per test: take it as a "
                    + "parameter of the test method or of @BeforeEach, not of the constructor of "
                    + parameter.getDeclaringExecutable().getDeclaringClass().getName());
        }
        // get and put, not computeIfAbsent: the same on every JUnit 5 and 6 release.
        ExtensionContext.Store store = context.getStore(NAMESPACE);
        TestLockClient client = store.get(CLIENT, TestLockClient.class);
        if (client == null) {
            client = TestLockClient.create();
            store.put(CLIENT, client);
        }
        return client;
    }

    @Override
    public void afterEach(ExtensionContext context) {
        TestLockClient client = context.getStore(NAMESPACE).remove(CLIENT, TestLockClient.class);
        if (client != null) {
            client.close();
        }
    }
}
