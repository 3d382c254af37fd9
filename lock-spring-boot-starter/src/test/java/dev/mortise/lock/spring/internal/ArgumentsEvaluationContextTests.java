package dev.mortise.lock.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;

/**
 * {@link ArgumentsEvaluationContext} reads every variable exactly as Spring's
 * {@code MethodBasedEvaluationContext} does, for the awkward cases too: parameters named like
 * another's alias ({@code p0}, {@code a1}) or like an explicit variable ({@code lockKey}), null
 * arguments, varargs, no arguments, unknown parameter names.
 */
class ArgumentsEvaluationContextTests {

    private static final ParameterNameDiscoverer DISCOVERER = new DefaultParameterNameDiscoverer();

    @SuppressWarnings("unused")
    static class Methods {
        void plain(String id, int count) { }
        void aliased(String first, String p0, String a0, String lockKey) { }
        void varargs(String prefix, String... parts) { }
        void none() { }
    }

    private static final List<String> NAMES = List.of("id", "count", "first", "p0", "p1", "p2", "p3", "a0", "a1",
            "a2", "a3", "lockKey", "prefix", "parts", "other", "p9");

    private static void assertSameLookups(Method method, String[] parameterNames, Object[] args) {
        MethodBasedEvaluationContext spring = new MethodBasedEvaluationContext("root", method, args,
                new ParameterNameDiscoverer() {
                    @Override
                    public String[] getParameterNames(Method m) {
                        return parameterNames;
                    }

                    @Override
                    public String[] getParameterNames(java.lang.reflect.Constructor<?> c) {
                        return null;
                    }
                });
        ArgumentsEvaluationContext ours = new ArgumentsEvaluationContext("root",
                new ArgumentsEvaluationContext.Names(method, parameterNames), args);
        spring.setVariable("lockKey", "explicit");
        ours.setVariable("lockKey", "explicit");
        List<String> differences = new ArrayList<>();
        for (String name : NAMES) {
            Object expected = spring.lookupVariable(name);
            Object actual = ours.lookupVariable(name);
            boolean same = expected instanceof Object[] e && actual instanceof Object[] a ? Arrays.equals(e, a)
                    : java.util.Objects.equals(expected, actual);
            if (!same) {
                differences.add(name + ": Spring " + deep(expected) + ", ours " + deep(actual));
            }
        }
        assertThat(differences).as(method.getName() + " with " + Arrays.deepToString(args)).isEmpty();
    }

    private static String deep(Object value) {
        return value instanceof Object[] array ? Arrays.deepToString(array) : String.valueOf(value);
    }

    private static Method method(String name) {
        return Arrays.stream(Methods.class.getDeclaredMethods()).filter(m -> m.getName().equals(name)).findFirst()
                .orElseThrow();
    }

    @Test
    void readsArgumentsAsMethodBasedEvaluationContextDoes() {
        for (String name : List.of("plain", "aliased", "varargs", "none")) {
            Method m = method(name);
            String[] discovered = DISCOVERER.getParameterNames(m);
            for (String[] names : Arrays.asList(discovered, null)) {
                int n = m.getParameterCount();
                Object[] values = new Object[n];
                for (int i = 0; i < n; i++) {
                    values[i] = m.getParameterTypes()[i] == String[].class ? new String[] {"x", "y"} : "v" + i;
                }
                assertSameLookups(m, names, values);
                Object[] nulls = new Object[n];
                assertSameLookups(m, names, nulls);
                assertSameLookups(m, names, new Object[0]);
                assertSameLookups(m, names, null);
                if (n > 0) {
                    Object[] more = Arrays.copyOf(values, n + 2);
                    more[n] = "extra1";
                    more[n + 1] = "extra2";
                    assertSameLookups(m, names, more);
                    assertSameLookups(m, names, Arrays.copyOf(values, n - 1));
                }
            }
        }
    }
}
