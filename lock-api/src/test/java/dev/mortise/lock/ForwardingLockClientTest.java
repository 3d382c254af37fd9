package dev.mortise.lock;

import dev.mortise.lock.local.LocalLockBackend;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ForwardingLockClient} forwards every abstract method of {@link LockClient} (a method it
 * left abstract would have to be written by every wrapper, and one added to the interface later
 * would break them all), and leaves the default methods, which are written in terms of the
 * others, to pass through the wrapper. This test fails the build for the next method added to
 * {@code LockClient} without its forwarding.
 */
class ForwardingLockClientTest {

    @Test
    void everyAbstractMethodIsForwardedAndNoDefaultOne() {
        List<String> missing = new ArrayList<>();
        List<String> overriddenDefaults = new ArrayList<>();
        for (Method method : LockClient.class.getMethods()) {
            if (Modifier.isStatic(method.getModifiers())) {
                continue;
            }
            Method declared;
            try {
                declared = ForwardingLockClient.class.getDeclaredMethod(method.getName(), method.getParameterTypes());
            } catch (NoSuchMethodException e) {
                declared = null;
            }
            if (method.isDefault() && declared != null) {
                overriddenDefaults.add(describe(method));
            } else if (!method.isDefault() && (declared == null || Modifier.isAbstract(declared.getModifiers()))) {
                missing.add(describe(method));
            }
        }
        assertThat(missing).as("LockClient methods ForwardingLockClient does not forward: add an override that "
                + "calls delegate() for each").isEmpty();
        assertThat(overriddenDefaults).as("LockClient default methods ForwardingLockClient overrides: they pass "
                + "through the wrapper, as its Javadoc says").isEmpty();
    }

    @Test
    void aWrapperSeesTheCallsItOverridesAndTheDefaultsGoThroughIt() {
        AtomicInteger acquires = new AtomicInteger();
        try (LockClient client = new ForwardingLockClient(LockClient.builder(LocalLockBackend.create()).build()) {
            @Override
            public LockLease acquire(LockSpec spec) {
                acquires.incrementAndGet();
                return super.acquire(spec);
            }
        }) {
            try (LockLease lease = client.acquire(LockSpec.of("forwarded").waitFor(Duration.ofSeconds(1)))) {
                assertThat(lease.key()).isEqualTo("forwarded");
            }
            try (MultiLease both = client.acquireAll(List.of("a", "b"), Duration.ofSeconds(1))) {
                assertThat(both.keys()).containsExactly("a", "b");
            }
            assertThat(client.backendName()).isEqualTo("local");
        }
        assertThat(acquires).hasValue(1);
    }

    private static String describe(Method method) {
        return method.getName() + Arrays.toString(method.getParameterTypes());
    }
}
