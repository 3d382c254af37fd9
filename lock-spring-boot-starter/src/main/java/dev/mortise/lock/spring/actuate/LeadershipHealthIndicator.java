package dev.mortise.lock.spring.actuate;

import dev.mortise.lock.spring.Leadership;
import dev.mortise.lock.spring.Leaderships;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The leadership groups of this instance as health details: per group its state ({@code leader},
 * {@code candidate}, {@code disabled} or {@code stopped}), epoch, key and backend. Leading or not
 * is no matter of health, so it is up; it is down only when an enabled group has stopped
 * contending while the application runs (its lock client was closed).
 */
public class LeadershipHealthIndicator extends AbstractHealthIndicator {

    private final Leaderships leaderships;

    public LeadershipHealthIndicator(Leaderships leaderships) {
        super("Leadership health check failed");
        this.leaderships = leaderships;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        boolean up = true;
        for (Leadership group : leaderships.all()) {
            Map<String, Object> details = new LinkedHashMap<>();
            String state = LocksEndpoint.state(group);
            details.put("state", state);
            group.epoch().ifPresent(epoch -> details.put("epoch", epoch));
            details.put("key", group.key());
            details.put("backend", group.backend());
            builder.withDetail(group.group(), details);
            up &= !state.equals("stopped");
        }
        if (up) {
            builder.up();
        } else {
            builder.down();
        }
    }
}
