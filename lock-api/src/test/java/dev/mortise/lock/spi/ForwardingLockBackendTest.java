package dev.mortise.lock.spi;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ForwardingLockBackend} must override every method of {@link LockBackend}, default ones
 * included: a method it inherits from the interface would run the interface's default instead of
 * the delegate's, silently, in every decorator built on it. This test fails the build for the next
 * SPI method added without its forwarding.
 */
class ForwardingLockBackendTest {

    @Test
    void everyLockBackendMethodIsForwarded() {
        List<String> missing = new ArrayList<>();
        for (Method method : LockBackend.class.getMethods()) {
            if (Modifier.isStatic(method.getModifiers()) || method.getDeclaringClass() == Object.class) {
                continue;
            }
            try {
                Method declared = ForwardingLockBackend.class.getDeclaredMethod(method.getName(),
                        method.getParameterTypes());
                if (Modifier.isAbstract(declared.getModifiers())) {
                    missing.add(describe(method) + " (abstract)");
                }
            } catch (NoSuchMethodException e) {
                missing.add(describe(method));
            }
        }
        assertThat(missing)
                .as("LockBackend methods ForwardingLockBackend does not forward: add an override that calls "
                        + "delegate() for each, so every decorator passes it on")
                .isEmpty();
    }

    private static String describe(Method method) {
        return method.getName() + Arrays.toString(method.getParameterTypes());
    }
}
