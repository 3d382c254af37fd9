package dev.mortise.lock.spring.internal;

import dev.mortise.lock.spring.DistributedLock;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** Parsed key expressions are cached per method and target class, never per evaluated key. */
class LockKeyEvaluatorTests {

    @Test
    void cacheIsBoundedByMethodsNotByKeys() throws Exception {
        LockOperationSource source = new LockOperationSource(null, Duration.ofSeconds(1));
        LockKeyEvaluator evaluator = new LockKeyEvaluator(null);
        Method method = Target.class.getMethod("run", long.class);
        LockOperation operation = source.find(method, Target.class).orElseThrow();
        for (long id = 0; id < 1_000; id++) {
            assertThat(evaluator.key(operation, new Object[] {id}, new Target(), Target.class)).isEqualTo("k:" + id);
        }
        assertThat(evaluator.cachedExpressions()).isEqualTo(1);
        evaluator.key(operation, new Object[] {1L}, new SubTarget(), SubTarget.class);
        assertThat(evaluator.cachedExpressions()).isEqualTo(2);
    }

    @Test
    void operationsAreResolvedOncePerMethodAndTargetClass() throws Exception {
        LockOperationSource source = new LockOperationSource(null, Duration.ofSeconds(1));
        Method method = Target.class.getMethod("run", long.class);
        assertThat(source.find(method, Target.class).orElseThrow())
                .isSameAs(source.find(method, Target.class).orElseThrow());
        assertThat(source.find(Target.class.getMethod("toString"), Target.class)).isEmpty();
    }

    @Test
    void compiledKeysEqualInterpretedKeysWhateverTheArgumentType() throws Exception {
        LockOperationSource source = new LockOperationSource(null, Duration.ofSeconds(1));
        Method method = Target.class.getMethod("any", Object.class);
        LockOperation operation = source.find(method, Target.class).orElseThrow();
        LockKeyEvaluator warm = new LockKeyEvaluator(null);
        // Enough calls for SpEL's mixed mode to compile the expression (it compiles string concatenation)...
        for (int id = 0; id < 500; id++) {
            assertThat(warm.key(operation, new Object[] {"id" + id}, new Target(), Target.class)).isEqualTo("any:id" + id);
        }
        assertThat(((org.springframework.expression.spel.standard.SpelExpression) warm.expressionFor(operation,
                Target.class)).compileExpression()).as("compiled").isTrue();
        // ...after which every argument must still give the key a fresh (interpreting) evaluator gives:
        // two instances of a service, one warm and one just started, must compute the same lock.
        for (Object value : java.util.List.of("abc", java.util.List.of(1, 2), 7L, 7, new StringBuilder("sb"),
                java.util.Optional.of("x"), new long[] {1, 2})) {
            String interpreted = new LockKeyEvaluator(null).key(operation, new Object[] {value}, new Target(), Target.class);
            assertThat(warm.key(operation, new Object[] {value}, new Target(), Target.class)).as("%s", value)
                    .isEqualTo(interpreted);
        }
    }

    public static class Target {
        @DistributedLock(key = "'k:' + #id")
        public void run(long id) {
        }

        @DistributedLock(key = "'any:' + #p0")
        public void any(Object value) {
        }
    }

    public static class SubTarget extends Target {
    }
}
