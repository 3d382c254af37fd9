package dev.mortise.lock.spring.actuate;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.spi.BackendGuarantees;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

import java.time.Duration;

/**
 * Health of one lock backend: up when one round trip ({@link LockClient#ping()}) succeeds,
 * with its latency, the number of holds open and what the backend guarantees; down with
 * the failure otherwise.
 */
public class LockBackendHealthIndicator extends AbstractHealthIndicator {

    private final LockClient client;

    public LockBackendHealthIndicator(LockClient client) {
        super("Lock backend '" + client.backendName() + "' health check failed");
        this.client = client;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        builder.withDetail("backend", client.backendName());
        long start = System.nanoTime();
        client.ping();
        Duration latency = Duration.ofNanos(System.nanoTime() - start);
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
