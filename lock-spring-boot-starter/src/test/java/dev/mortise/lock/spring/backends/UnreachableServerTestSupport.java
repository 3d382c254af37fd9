package dev.mortise.lock.spring.backends;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockContext;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.spring.DistributedLock;
import dev.mortise.lock.spring.autoconfigure.MortiseLockAutoConfiguration;
import dev.mortise.lock.spring.autoconfigure.MortiseLockBackendsAutoConfiguration;
import dev.mortise.lock.spring.autoconfigure.MortiseLockHealthAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 15 item 11: a server that is down when the application starts behaves the same on
 * every backend. The application starts; the {@code locks} health is DOWN with the cause;
 * calls fail with {@link LockBackendException} well within the wait (they do not wait for a
 * server that is not there); and once the server starts on the configured port, health
 * turns UP and calls succeed, without a restart of the application.
 */
abstract class UnreachableServerTestSupport {

    /** Long, so that a call that waits for the server instead of failing is told apart. */
    static final Duration WAIT = Duration.ofSeconds(30);
    /** Failing "fast": the operation timeout (1 s) plus wide slack for a loaded machine. */
    static final Duration FAST = Duration.ofSeconds(12);
    /** How long the backend may take to notice the server is back. */
    static final Duration RECOVERY = Duration.ofSeconds(30);

    /** The backend name, as in {@code mortise.lock.backend}. */
    abstract String backend();

    /** Connection properties for the server's (reserved) port, with a 1 s operation timeout. */
    abstract String[] connection();

    /** Adjusts the runner (a DataSource bean, ...). */
    ApplicationContextRunner customize(ApplicationContextRunner runner) {
        return runner;
    }

    /** Starts the server on the port {@link #connection()} names. */
    abstract void startServer() throws Exception;

    @Test
    void startsDownFailsFastAndRecoversWhenTheServerStarts() {
        customize(new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(MortiseLockBackendsAutoConfiguration.class,
                        MortiseLockAutoConfiguration.class, MortiseLockHealthAutoConfiguration.class))
                .withPropertyValues("mortise.lock.backend=" + backend(), "mortise.lock.wait-for=" + WAIT.toSeconds() + "s")
                .withPropertyValues(connection())
                .withBean(Jobs.class))
                .run(context -> {
                    assertThat(context).as("the application starts with the server down").hasNotFailed();
                    Health down = health(context);
                    assertThat(down.getStatus()).isEqualTo(Status.DOWN);
                    assertThat(down.getDetails()).containsEntry("backend", backend()).containsKey("error");
                    assertThat(String.valueOf(down.getDetails().get("error")))
                            .startsWith(LockBackendException.class.getName()).contains(backend())
                            .as("a Spring application is told Spring properties, not builder methods")
                            .doesNotContain("Builder.").doesNotContain("createTableIfMissing");

                    LockClient client = context.getBean(LockClient.class);
                    Jobs jobs = context.getBean(Jobs.class);
                    String key = UUID.randomUUID().toString();
                    assertFailsFast(() -> jobs.run(key));
                    assertFailsFast(() -> client.acquire("direct:" + key, WAIT).close());

                    startServer();

                    long deadline = System.nanoTime() + RECOVERY.toNanos();
                    Health health = health(context);
                    while (health.getStatus() != Status.UP && System.nanoTime() - deadline < 0) {
                        Thread.sleep(200);
                        health = health(context);
                    }
                    assertThat(health.getStatus()).as("health after the server started: %s", health.getDetails())
                            .isEqualTo(Status.UP);
                    assertThat(jobs.run(key)).isEqualTo(backend());
                    try (LockLease lease = client.acquire("direct:" + key, WAIT)) {
                        assertThat(lease.backend()).isEqualTo(backend());
                    }
                    assertThat(client.heldLocks()).isEmpty();
                });
    }

    /** The only backend's indicator in the {@code locks} contributor. */
    private Health health(ApplicationContext context) {
        CompositeHealthContributor locks = context.getBean("locksHealthContributor", CompositeHealthContributor.class);
        assertThat(locks.stream()).extracting(entry -> entry.name()).containsExactly(backend());
        return ((HealthIndicator) locks.getContributor(backend())).health();
    }

    private void assertFailsFast(Runnable call) {
        long start = System.nanoTime();
        assertThatThrownBy(call::run).isInstanceOf(LockBackendException.class).hasMessageContaining(backend());
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("failed well within the wait of %s", WAIT)
                .isLessThan(FAST);
    }

    public static class Jobs {
        @DistributedLock(key = "'job:' + #key")
        public String run(String key) {
            return LockContext.current().map(LockLease::backend).orElse(null);
        }
    }
}
