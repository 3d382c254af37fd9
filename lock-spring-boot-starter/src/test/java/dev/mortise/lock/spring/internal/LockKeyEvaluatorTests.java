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

    public static class Target {
        @DistributedLock(key = "'k:' + #id")
        public void run(long id) {
        }
    }

    public static class SubTarget extends Target {
    }
}
