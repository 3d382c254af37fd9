package dev.mortise.lock.spring.aspectj;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockContext;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.spring.DistributedLock;
import dev.mortise.lock.spring.LockBusyException;
import dev.mortise.lock.spring.LockClients;
import dev.mortise.lock.spring.OnBusy;
import dev.mortise.lock.spring.internal.CompletionStageHandler;
import dev.mortise.lock.spring.internal.LeaseReleaser;
import dev.mortise.lock.spring.internal.LockInvoker;
import dev.mortise.lock.spring.internal.WovenInvoker;
import dev.mortise.lock.spring.internal.LockKeyEvaluator;
import dev.mortise.lock.spring.internal.LockObserver;
import dev.mortise.lock.spring.internal.LockOperationSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.aop.aspectj.annotation.AspectJProxyFactory;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The AspectJ form of the advice runs the same engine as the proxy interceptor. Applied
 * here through Spring's AspectJ proxy support (the pointcut and advice as AspectJ reads
 * them); woven code calls the same {@code lock} advice.
 */
class DistributedLockAspectTests {

    private final LockClient client = LockClient.builder(LocalLockBackend.create()).build();
    private final LeaseReleaser releaser = new LeaseReleaser();
    private final LockInvoker invoker = new LockInvoker(new LockOperationSource(null, Duration.ofMillis(100)),
            new LockKeyEvaluator(null), () -> new LockClients(Map.of("local", client), "local"),
            () -> LockObserver.NOOP, List.of(new CompletionStageHandler()), null, releaser);

    @AfterEach
    void close() {
        WovenInvoker.use(null);
        releaser.close();
        client.close();
    }

    private <T> T advised(T target) {
        AspectJProxyFactory factory = new AspectJProxyFactory(target);
        factory.setProxyTargetClass(true);
        WovenInvoker.use(invoker);
        factory.addAspect(new DistributedLockAspect());
        return factory.getProxy();
    }

    @Test
    void annotatedMethodRunsUnderTheLock() {
        Service service = advised(new Service());
        assertThat(service.locked("a")).isEqualTo("item:a");
        assertThat(client.heldLocks()).isEmpty();
    }

    @Test
    void typeLevelAnnotationAppliesToPublicMethods() {
        TypeLocked service = advised(new TypeLocked());
        assertThat(service.run()).isEqualTo("type");
    }

    @Test
    void busyPolicyApplies() {
        Service service = advised(new Service());
        try (LockLease ignored = client.acquire(LockSpec.of("item:b").owner("elsewhere"))) {
            assertThatThrownBy(() -> service.locked("b")).isInstanceOf(LockBusyException.class);
        }
    }

    @Test
    void unannotatedMethodsAreLeftAlone() {
        assertThat(advised(new Service()).plain()).isZero();
    }

    @Test
    void unwiredWovenAspectFailsRatherThanRunUnlocked() {
        WovenInvoker.use(null);
        AspectJProxyFactory factory = new AspectJProxyFactory(new Service());
        factory.setProxyTargetClass(true);
        factory.addAspect(new DistributedLockAspect());
        Service service = factory.getProxy();
        assertThatThrownBy(() -> service.locked("c")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("mortise.lock.mode=aspectj");
    }

    public static class Service {
        @DistributedLock(key = "'item:' + #id", onBusy = OnBusy.FAIL)
        public String locked(String id) {
            return LockContext.current().map(LockLease::key).orElse(null);
        }

        public long plain() {
            return LockContext.all().stream().filter(LockLease::isValid).count();
        }
    }

    @DistributedLock(key = "'type'")
    public static class TypeLocked {
        public String run() {
            return LockContext.current().map(LockLease::key).orElse(null);
        }
    }
}
