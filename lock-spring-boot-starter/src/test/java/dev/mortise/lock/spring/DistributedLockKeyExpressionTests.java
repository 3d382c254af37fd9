package dev.mortise.lock.spring;

import dev.mortise.lock.LockClient;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** SpEL key forms of {@code @DistributedLock}, and what a null or blank key does. */
class DistributedLockKeyExpressionTests {

    private final ApplicationContextRunner runner = LockTestSupport.localRunner()
            .withBean("prefixes", Prefixes.class)
            .withBean(KeyedService.class)
            .withBean(TypeLockedService.class);

    @Test
    void argumentByName() {
        runner.run(context -> assertThat(context.getBean(KeyedService.class).byName(new Order("42")))
                .isEqualTo("order:42"));
    }

    @Test
    void argumentByPosition() {
        runner.run(context -> {
            KeyedService service = context.getBean(KeyedService.class);
            assertThat(service.byPosition("a", "b")).isEqualTo("a-b");
        });
    }

    @Test
    void rootMethodTargetAndArgs() {
        runner.run(context -> assertThat(context.getBean(KeyedService.class).byRoot(7))
                .isEqualTo("byRoot:KeyedService:[7]"));
    }

    @Test
    void beanReference() {
        runner.run(context -> assertThat(context.getBean(KeyedService.class).byBean("x"))
                .isEqualTo("tenant-1:x"));
    }

    @Test
    void nonStringKeyIsConvertedToText() {
        runner.run(context -> assertThat(context.getBean(KeyedService.class).numeric(12L)).isEqualTo("12"));
    }

    @Test
    void nullKeyIsAnErrorNamingTheMethodAndExpression() {
        runner.run(context -> {
            KeyedService service = context.getBean(KeyedService.class);
            assertThatThrownBy(() -> service.byId(new Order(null)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("KeyedService.byId(Order)")
                    .hasMessageContaining("\"#order.id\"")
                    .hasMessageContaining("evaluated to null");
            assertThat(service.calls()).isZero();
        });
    }

    @Test
    void blankKeyIsAnError() {
        runner.run(context -> assertThatThrownBy(() -> context.getBean(KeyedService.class).raw("  "))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("KeyedService.raw(String)")
                .hasMessageContaining("blank"));
    }

    @Test
    void typeLevelAnnotationLocksEveryPublicMethod() {
        runner.run(context -> {
            TypeLockedService service = context.getBean(TypeLockedService.class);
            assertThat(service.first("a")).isEqualTo("type:a");
            assertThat(service.second("b")).isEqualTo("own:b");
        });
    }

    @Test
    void keysDoNotShareOneLockAcrossArguments() {
        runner.run(context -> {
            LockClient client = context.getBean(LockClient.class);
            try (var ignored = LockTestSupport.holdElsewhere(client, "order:1")) {
                assertThat(context.getBean(KeyedService.class).byName(new Order("2"))).isEqualTo("order:2");
            }
        });
    }

    public record Order(String id) {
    }

    public static class Prefixes {
        public String tenant() {
            return "tenant-1";
        }
    }

    public static class KeyedService {
        private int calls;

        public int calls() {
            return calls;
        }

        @DistributedLock(key = "'order:' + #order.id")
        public String byName(Order order) {
            return LockTestSupport.currentKey();
        }

        @DistributedLock(key = "#order.id")
        public String byId(Order order) {
            calls++;
            return LockTestSupport.currentKey();
        }

        @DistributedLock(key = "#p0 + '-' + #a1")
        public String byPosition(String first, String second) {
            return LockTestSupport.currentKey();
        }

        @DistributedLock(key = "#root.method.name + ':' + #root.target.class.simpleName + ':' "
                + "+ T(java.util.Arrays).toString(#root.args)")
        public String byRoot(int value) {
            return LockTestSupport.currentKey();
        }

        @DistributedLock(key = "@prefixes.tenant() + ':' + #id")
        public String byBean(String id) {
            return LockTestSupport.currentKey();
        }

        @DistributedLock(key = "#id")
        public String numeric(Long id) {
            return LockTestSupport.currentKey();
        }

        @DistributedLock(key = "#key")
        public String raw(String key) {
            return LockTestSupport.currentKey();
        }
    }

    @DistributedLock(key = "'type:' + #p0")
    public static class TypeLockedService {
        public String first(String value) {
            return LockTestSupport.currentKey();
        }

        @DistributedLock(key = "'own:' + #value")
        public String second(String value) {
            return LockTestSupport.currentKey();
        }
    }
}
