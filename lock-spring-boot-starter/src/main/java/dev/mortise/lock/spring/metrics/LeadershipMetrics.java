package dev.mortise.lock.spring.metrics;

import dev.mortise.lock.spring.Leadership;
import dev.mortise.lock.spring.LeadershipElectedEvent;
import dev.mortise.lock.spring.LeadershipRevokedEvent;
import dev.mortise.lock.spring.Leaderships;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.event.SmartApplicationListener;

/**
 * Micrometer meters of leader election, per group (tag {@code group}, and {@code backend}):
 * <ul>
 *   <li>{@code mortise.leadership.leader}: gauge, 1 while this instance leads the group, else 0;</li>
 *   <li>{@code mortise.leadership.epoch}: gauge, the current term's epoch while leading (NaN otherwise);</li>
 *   <li>{@code mortise.leadership.elected}: counter of terms won;</li>
 *   <li>{@code mortise.leadership.term}: timer of ended terms, tag {@code reason} ({@code lost},
 *       {@code stepped_down}, {@code closed}): its total is the time spent as leader.</li>
 * </ul>
 * Thread-safe; fed by the leadership events, read by the gauges.
 */
public final class LeadershipMetrics implements SmartApplicationListener {

    private final MeterRegistry registry;

    public LeadershipMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Creates the meters of every group, so they exist before the first election. */
    public void register(Leaderships leaderships) {
        for (Leadership group : leaderships.all()) {
            Gauge.builder("mortise.leadership.leader", group, g -> g.isLeader() ? 1 : 0)
                    .description("1 while this instance leads the group")
                    .tag("group", group.group()).tag("backend", group.backend()).register(registry);
            Gauge.builder("mortise.leadership.epoch", group,
                            g -> g.epoch().isPresent() ? g.epoch().getAsLong() : Double.NaN)
                    .description("Epoch (fencing token) of the current term while leading")
                    .tag("group", group.group()).tag("backend", group.backend()).register(registry);
            elected(group.group(), group.backend());
        }
    }

    private Counter elected(String group, String backend) {
        return Counter.builder("mortise.leadership.elected").description("Terms of leadership won")
                .tag("group", group).tag("backend", backend).register(registry);
    }

    @Override
    public boolean supportsEventType(Class<? extends ApplicationEvent> eventType) {
        return LeadershipElectedEvent.class.isAssignableFrom(eventType)
                || LeadershipRevokedEvent.class.isAssignableFrom(eventType);
    }

    @Override
    public void onApplicationEvent(ApplicationEvent event) {
        if (event instanceof LeadershipElectedEvent elected && event.getSource() instanceof Leadership group) {
            elected(elected.group(), group.backend()).increment();
        } else if (event instanceof LeadershipRevokedEvent revoked && event.getSource() instanceof Leadership group) {
            Timer.builder("mortise.leadership.term").description("Terms of leadership, by how they ended")
                    .tag("group", revoked.group()).tag("backend", group.backend())
                    .tag("reason", revoked.reason().name().toLowerCase(java.util.Locale.ROOT))
                    .register(registry).record(revoked.ledFor());
        }
    }
}
