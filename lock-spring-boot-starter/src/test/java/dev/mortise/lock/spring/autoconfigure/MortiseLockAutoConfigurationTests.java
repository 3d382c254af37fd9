package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockEvent;
import dev.mortise.lock.LockListener;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.local.LocalLockServer;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spring.LockClients;
import dev.mortise.lock.spring.aspectj.DistributedLockAspect;
import dev.mortise.lock.spring.internal.LeaseCommitGuardRegistrar;
import dev.mortise.lock.spring.internal.LockAdvisor;
import dev.mortise.lock.spring.internal.LockInvoker;
import dev.mortise.lock.spring.internal.ReactorHandler;
import dev.mortise.lock.spring.internal.TransactionBinding;
import org.aspectj.lang.Aspects;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.Ordered;
import org.springframework.transaction.TransactionExecutionListener;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The conditions of {@link MortiseLockAutoConfiguration}. */
class MortiseLockAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(MortiseLockAutoConfiguration.class));

    @Test
    void noBackendFailsStartupSayingWhatToSet() {
        runner.run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("No lock backend is configured")
                .hasStackTraceContaining("mortise.lock.backend=local"));
    }

    @Test
    void localBackendOnRequest() {
        runner.withPropertyValues("mortise.lock.backend=local").run(context -> {
            assertThat(context).hasSingleBean(LocalLockBackend.class).hasSingleBean(LockClients.class)
                    .hasSingleBean(LockClient.class).hasSingleBean(LockAdvisor.class);
            assertThat(context.getBean(LockClients.class).names()).containsExactly("local");
            assertThat(context.getBean(LockClient.class).backendName()).isEqualTo("local");
            assertThat(context.getBean(LockAdvisor.class).getOrder()).isEqualTo(Ordered.LOWEST_PRECEDENCE - 100);
        });
    }

    @Test
    void localBackendIsNeverPickedSilently() {
        runner.withBean("other", LockBackend.class, () -> new LocalLockBackend(new LocalLockServer()))
                .run(context -> assertThat(context).doesNotHaveBean(LocalLockBackend.class.getName()));
    }

    @Test
    void userBackendBeanIsWrappedAndIsTheDefaultWhenAlone() {
        runner.withBean("myBackend", LockBackend.class, LocalLockBackend::create).run(context -> {
            LockClients clients = context.getBean(LockClients.class);
            assertThat(clients.names()).containsExactly("local");
            assertThat(clients.defaultName()).isEqualTo("local");
        });
    }

    @Test
    void backendsSharingANameAreNamedByBeanAndNeedADefault() {
        ApplicationContextRunner two = runner
                .withBean("east", LockBackend.class, LocalLockBackend::create)
                .withBean("west", LockBackend.class, LocalLockBackend::create);
        two.run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("Several lock backends are configured [east, west]")
                .hasStackTraceContaining("mortise.lock.backend"));
        two.withPropertyValues("mortise.lock.backend=west").run(context -> {
            LockClients clients = context.getBean(LockClients.class);
            assertThat(clients.names()).containsExactly("east", "west");
            assertThat(clients.defaultName()).isEqualTo("west");
            assertThat(context.getBean(LockClient.class)).isSameAs(clients.get("west"));
        });
    }

    @Test
    void localNextToAnotherBackendWhenEnabled() {
        runner.withBean("remote", LockBackend.class, () -> new NamedBackend("redis"))
                .withPropertyValues("mortise.lock.local.enabled=true", "mortise.lock.backend=redis")
                .run(context -> assertThat(context.getBean(LockClients.class).names())
                        .containsExactlyInAnyOrder("redis", "local"));
    }

    @Test
    void unknownDefaultBackendFailsStartup() {
        runner.withBean("myBackend", LockBackend.class, LocalLockBackend::create)
                .withPropertyValues("mortise.lock.backend=redis")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("mortise.lock.backend=redis")
                        .hasStackTraceContaining("configured: [local]"));
    }

    @Test
    void settingsForAnUnknownBackendFailStartup() {
        runner.withPropertyValues("mortise.lock.backend=local", "mortise.lock.backends.etcd.default-lease=10s")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("mortise.lock.backends.etcd"));
    }

    @Test
    void invalidLeaseFailsStartupNamingTheProperty() {
        runner.withPropertyValues("mortise.lock.backend=local", "mortise.lock.default-lease=1ms")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("mortise.lock.default-lease"));
    }

    @Test
    void perBackendSettingsAndCustomizersAndListenersApply() {
        List<LockEvent> events = new ArrayList<>();
        runner.withPropertyValues("mortise.lock.backend=local", "mortise.lock.backends.local.max-key-bytes=8")
                .withBean(LockListener.class, () -> events::add)
                .withBean(LockClientBuilderCustomizer.class, () -> (name, builder) ->
                        builder.clockDrift(0.02, Duration.ofMillis(5)))
                .run(context -> {
                    LockClient client = context.getBean(LockClient.class);
                    client.tryAcquire("short").orElseThrow().close();
                    assertThat(events).extracting(LockEvent::type).contains(LockEvent.Type.ACQUIRED);
                    assertThat(context).getBean(LockClient.class).satisfies(c ->
                            assertThat(org.assertj.core.api.Assertions.catchThrowable(
                                    () -> c.tryAcquire("much-too-long"))).isInstanceOf(IllegalArgumentException.class));
                });
    }

    @Test
    void userLockClientsBacksOff() {
        runner.withBean(LockClients.class, () -> new LockClients(
                        java.util.Map.of("mine", LockClient.builder(LocalLockBackend.create()).build()), "mine"))
                .run(context -> {
                    assertThat(context).hasSingleBean(LockClients.class);
                    assertThat(context.getBean(LockClient.class).backendName()).isEqualTo("local");
                    assertThat(context.getBean(LockClients.class).names()).containsExactly("mine");
                });
    }

    @Test
    void disabledByProperty() {
        runner.withPropertyValues("mortise.lock.enabled=false", "mortise.lock.backend=local")
                .run(context -> assertThat(context).doesNotHaveBean(LockClients.class)
                        .doesNotHaveBean(LockInvoker.class).doesNotHaveBean(LockAdvisor.class));
    }

    @Test
    void orderIsConfigurable() {
        runner.withPropertyValues("mortise.lock.backend=local", "mortise.lock.order=42")
                .run(context -> assertThat(context.getBean(LockAdvisor.class).getOrder()).isEqualTo(42));
    }

    @Test
    void reactorSupportOnlyWithReactor() {
        ApplicationContextRunner local = runner.withPropertyValues("mortise.lock.backend=local");
        local.run(context -> assertThat(context).hasSingleBean(ReactorHandler.class));
        local.withClassLoader(new FilteredClassLoader(Mono.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ReactorHandler.class)
                        .hasSingleBean(LockInvoker.class));
    }

    @Test
    void transactionSupportOnlyWithSpringTransactions() {
        ApplicationContextRunner local = runner.withPropertyValues("mortise.lock.backend=local");
        local.run(context -> assertThat(context).hasSingleBean(TransactionBinding.class)
                .hasSingleBean(LeaseCommitGuardRegistrar.class));
        local.withClassLoader(new FilteredClassLoader(TransactionExecutionListener.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(TransactionBinding.class)
                        .doesNotHaveBean(LeaseCommitGuardRegistrar.class).hasSingleBean(LockAdvisor.class));
    }

    @Test
    void aspectjModeCreatesNoProxiesAndFailsIfTheAspectIsNotWoven() {
        runner.withPropertyValues("mortise.lock.backend=local", "mortise.lock.mode=aspectj")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("DistributedLockAspect is not woven"));
    }

    @Test
    void aspectjModeWithoutAspectjFailsStartup() {
        runner.withPropertyValues("mortise.lock.backend=local", "mortise.lock.mode=aspectj")
                .withClassLoader(new FilteredClassLoader(Aspects.class, DistributedLockAspect.class))
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("AspectJ (org.aspectj:aspectjweaver) is not on the classpath"));
    }

    @Test
    void clientsAreClosedWithTheContext() {
        LocalLockServer server = new LocalLockServer();
        runner.withBean("shared", LockBackend.class, () -> new LocalLockBackend(server)).run(context -> {
            context.getBean(LockClient.class).acquire(LockSpec.of("k").owner("o"));
            assertThat(server.isHeld("k")).isTrue();
        });
        assertThat(server.isHeld("k")).isFalse();
    }

    @Test
    void clientsReleaseTheirHoldsBeforeTheBackendsClose() {
        LocalLockServer server = new LocalLockServer();
        runner.withBean("strict", LockBackend.class, () -> new StrictBackend(server)).run(context -> {
            context.getBean(LockClient.class).acquire(LockSpec.of("k").owner("o"));
            assertThat(server.isHeld("k")).isTrue();
        });
        assertThat(server.isHeld("k")).as("released, not left to expire").isFalse();
    }

    /** Refuses every call once closed, as a backend whose connections are gone. */
    static final class StrictBackend extends NamedBackend {
        private volatile boolean closed;

        StrictBackend(LocalLockServer server) {
            super("local", new LocalLockBackend(server));
        }

        @Override
        public boolean release(dev.mortise.lock.spi.Grant grant) {
            if (closed) {
                throw new IllegalStateException("backend closed");
            }
            return super.release(grant);
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    /** A backend that only has a different name, to stand for a remote one; closing it leaves the delegate open. */
    static class NamedBackend extends dev.mortise.lock.spi.ForwardingLockBackend {
        private final String name;

        NamedBackend(String name) {
            this(name, LocalLockBackend.create());
        }

        NamedBackend(String name, LocalLockBackend delegate) {
            super(delegate);
            this.name = name;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public void close() {
        }
    }
}
