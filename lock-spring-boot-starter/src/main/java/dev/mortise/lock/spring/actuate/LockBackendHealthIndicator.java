package dev.mortise.lock.spring.actuate;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.spi.BackendGuarantees;
import dev.mortise.lock.spring.internal.SpringTerms;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

import java.time.Duration;
import java.util.List;

/**
 * Health of one lock backend: up when one round trip ({@link LockClient#ping()}) succeeds,
 * with its latency, the number of holds open and what the backend guarantees; down with
 * the failure otherwise, or with what to fix when the server answers but a set-up check
 * fails (a missing JDBC lock table).
 */
public class LockBackendHealthIndicator extends AbstractHealthIndicator {

    private final LockClient client;
    private final List<Runnable> checks;

    public LockBackendHealthIndicator(LockClient client) {
        this(client, List.of());
    }

    /**
     * @param checks further checks of the backend's set-up after the round trip (a JDBC lock
     *               table that exists); each throws, naming the fix, to report the backend down
     */
    public LockBackendHealthIndicator(LockClient client, List<Runnable> checks) {
        super("Lock backend '" + client.backendName() + "' health check failed");
        this.client = client;
        this.checks = List.copyOf(checks);
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        builder.withDetail("backend", client.backendName());
        long start = System.nanoTime();
        try {
            client.ping();
        } catch (RuntimeException e) {
            builder.down().withDetail("error", e.getClass().getName() + ": " + SpringTerms.translate(e.getMessage()));
            return;
        }
        Duration latency = Duration.ofNanos(System.nanoTime() - start);
        for (Runnable check : checks) {
            try {
                check.run();
            } catch (RuntimeException e) {
                builder.down().withDetail("error", SpringTerms.translate(e.getMessage()));
                return;
            }
        }
        BackendGuarantees guarantees = client.guarantees();
        builder.up()
                .withDetail("latency", latency.toMillis() + "ms")
                .withDetail("held", client.heldLocks().size())
                .withDetail("leaseModel", guarantees.leaseModel().name())
                .withDetail("fair", guarantees.fair())
                .withDetail("wakeup", guarantees.wakeup().name())
                .withDetail("fencing", guarantees.fencing());
    }
}
