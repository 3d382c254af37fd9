package dev.mortise.lock.spring.leadership;

import dev.mortise.lock.LeadershipRevoked;
import dev.mortise.lock.spring.LeaderOnly;
import dev.mortise.lock.spring.Leadership;
import dev.mortise.lock.spring.LeadershipElectedEvent;
import dev.mortise.lock.spring.LeadershipRevokedEvent;
import dev.mortise.lock.spring.Leaderships;
import dev.mortise.lock.spring.actuate.LeadershipHealthIndicator;
import dev.mortise.lock.spring.actuate.LocksEndpoint;
import dev.mortise.lock.spring.autoconfigure.MortiseLeadershipAutoConfiguration;
import dev.mortise.lock.spring.autoconfigure.MortiseLeadershipHealthAutoConfiguration;
import dev.mortise.lock.spring.autoconfigure.MortiseLeadershipMetricsAutoConfiguration;
import dev.mortise.lock.spring.autoconfigure.MortiseLockAutoConfiguration;
import dev.mortise.lock.spring.autoconfigure.MortiseLockBackendsAutoConfiguration;
import dev.mortise.lock.spring.autoconfigure.MortiseLockEndpointAutoConfiguration;
import dev.mortise.lock.tck.server.RedisServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Leader election in the starter against a real redis-server: two application contexts on one
 * server stand for two instances of a service. Waits are "eventually, within the lease and
 * generous slack", never speed targets.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LeadershipIntegrationTests {

    private static final Duration SLACK = Duration.ofSeconds(20);
    private static RedisServer server;

    @BeforeAll
    static void start() {
        server = new RedisServer();
        server.start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static final String GROUP = "billing";

    /** A runner of instances of one group; {@code key} is unique per test, so tests never meet on the server. */
    private ApplicationContextRunner runner(String key) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(MortiseLockBackendsAutoConfiguration.class,
                        MortiseLockAutoConfiguration.class, MortiseLeadershipAutoConfiguration.class,
                        MortiseLockEndpointAutoConfiguration.class, MortiseLeadershipHealthAutoConfiguration.class,
                        MortiseLeadershipMetricsAutoConfiguration.class))
                .withPropertyValues("mortise.lock.backend=redis", "mortise.lock.redis.address=" + server.address(),
                        "mortise.lock.default-lease=2s", "management.endpoints.web.exposure.include=locks",
                        "mortise.lock.leadership." + GROUP + ".key=" + key)
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withBean(Billing.class)
                .withBean(Events.class);
    }

    private static String key() {
        return "leader:billing:" + UUID.randomUUID().toString().substring(0, 8);
    }

    @Test
    void oneOfTwoInstancesLeadsRunsLeaderOnlyWorkAndHandsOverWhenItStops() {
        String group = GROUP;
        String key = key();
        runner(key).run(first -> runner(key).run(second -> {
            Leadership one = leadership(first, group);
            Leadership two = leadership(second, group);
            await(() -> one.isLeader() || two.isLeader(), "a leader");
            AssertableApplicationContext leaderContext = one.isLeader() ? first : second;
            AssertableApplicationContext otherContext = one.isLeader() ? second : first;
            Leadership leader = leadership(leaderContext, group);
            Leadership other = leadership(otherContext, group);
            assertThat(other.isLeader()).isFalse();
            long epoch = leader.epoch().orElseThrow();

            // @LeaderOnly: runs on the leader, skipped (empty values) elsewhere.
            Billing leaderBilling = leaderContext.getBean(Billing.class);
            Billing otherBilling = otherContext.getBean(Billing.class);
            assertThat(leaderBilling.closeTheDay()).isEqualTo(Optional.of("closed"));
            assertThat(otherBilling.closeTheDay()).isEmpty();
            assertThat(leaderBilling.tally()).isEqualTo(1);
            assertThat(otherBilling.tally()).isZero();
            otherBilling.job();
            assertThat(otherBilling.runs()).isZero();
            leaderBilling.job();
            assertThat(leaderBilling.runs()).isEqualTo(2);

            // Events, in order, with the epoch; endpoint, health and metrics show the state.
            Events events = leaderContext.getBean(Events.class);
            await(() -> !events.received.isEmpty(), "the elected event");
            assertThat(events.received.get(0)).isInstanceOfSatisfying(LeadershipElectedEvent.class, e -> {
                assertThat(e.group()).isEqualTo(group);
                assertThat(e.epoch()).isEqualTo(epoch);
            });
            assertThat(events.threads).allSatisfy(t -> assertThat(t).startsWith("mortise-leadership-"));
            LocksEndpoint.LeadershipDescriptor shown = leaderContext.getBean(LocksEndpoint.class).locks().leadership()
                    .get(0);
            assertThat(shown.group()).isEqualTo(group);
            assertThat(shown.state()).isEqualTo("leader");
            assertThat(shown.epoch()).isEqualTo(epoch);
            assertThat(otherContext.getBean(LocksEndpoint.class).locks().leadership().get(0).state())
                    .isEqualTo("candidate");
            Health health = leaderContext.getBean(LeadershipHealthIndicator.class).health(true);
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails().get(group)).isInstanceOfSatisfying(Map.class, d -> {
                assertThat(d.get("state")).isEqualTo("leader");
                assertThat(d.get("epoch")).isEqualTo(epoch);
            });
            MeterRegistry meters = leaderContext.getBean(MeterRegistry.class);
            assertThat(meters.get("mortise.leadership.leader").tag("group", group).gauge().value()).isEqualTo(1.0);
            assertThat(meters.get("mortise.leadership.elected").tag("group", group).counter().count()).isEqualTo(1.0);
            assertThat(otherContext.getBean(MeterRegistry.class).get("mortise.leadership.leader").tag("group", group)
                    .gauge().value()).isZero();

            // The leader stops (the context closes): it releases, is told, and the other takes over.
            ((ConfigurableApplicationContext) leaderContext.getSourceApplicationContext()).close();
            assertThat(events.received).last().isInstanceOfSatisfying(LeadershipRevokedEvent.class, e -> {
                assertThat(e.epoch()).isEqualTo(epoch);
                assertThat(e.reason()).isEqualTo(LeadershipRevoked.Reason.CLOSED);
            });
            await(other::isLeader, "the other instance to lead");
            assertThat(other.epoch().orElseThrow()).isGreaterThan(epoch);
            assertThat(otherBilling.closeTheDay()).isEqualTo(Optional.of("closed"));
        }));
    }

    @Test
    void stepDownRevokesAndAnEnabledFalseGroupNeverLeads() {
        String group = GROUP;
        String key = key();
        runner(key).withPropertyValues("mortise.lock.leadership.idle.enabled=false").run(context -> {
            assertThat(context).hasNotFailed();
            Leadership leadership = leadership(context, group);
            await(leadership::isLeader, "the only instance to lead");
            long epoch = leadership.epoch().orElseThrow();
            assertThat(leadership.stepDown()).isTrue();
            Events events = context.getBean(Events.class);
            await(() -> events.received.stream().anyMatch(e -> e instanceof LeadershipRevokedEvent r
                    && r.reason() == LeadershipRevoked.Reason.STEPPED_DOWN), "the stepped-down event");
            await(() -> leadership.epoch().orElse(-1) > epoch, "leading again with a greater epoch");

            Leadership idle = context.getBean(Leaderships.class).get("idle");
            assertThat(idle.isEnabled()).isFalse();
            assertThat(idle.isLeader()).isFalse();
            assertThat(context.getBean(Billing.class).idle()).isZero();
            assertThat(context.getBean(LocksEndpoint.class).locks().leadership())
                    .extracting(LocksEndpoint.LeadershipDescriptor::state).contains("disabled");
        });
    }

    @Test
    void anUnconfiguredGroupAndATypoFailClearly() {
        String group = GROUP;
        String key = key();
        runner(key).run(context -> assertThatThrownBy(() -> context.getBean(Billing.class).nope())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("mortise.lock.leadership.nope.enabled"));
        runner(key).withPropertyValues("mortise.lock.leadership." + group + ".enabeld=true")
                .run(context -> assertThat(context.getStartupFailure())
                        .hasStackTraceContaining("mortise.lock.leadership." + group + ".enabled"));
    }

    private static Leadership leadership(AssertableApplicationContext context, String group) {
        return context.getBean(Leaderships.class).get(group);
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + SLACK.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Timed out after " + SLACK + " waiting for " + what);
            }
            Thread.sleep(20);
        }
    }

    /** A service with leader-only work (an @Scheduled job in a real application). */
    public static class Billing {
        final AtomicInteger runs = new AtomicInteger();

        public int runs() {
            return runs.get();
        }

        @LeaderOnly("billing")
        public Optional<String> closeTheDay() {
            return Optional.of("closed");
        }

        @LeaderOnly("billing")
        public int tally() {
            return runs.incrementAndGet();
        }

        @LeaderOnly("billing")
        public void job() {
            runs.incrementAndGet();
        }

        @LeaderOnly("nope")
        public void nope() {
        }

        @LeaderOnly("idle")
        public int idle() {
            return 1;
        }
    }

    /** Records the leadership events and the threads they came on. */
    public static class Events implements ApplicationListener<org.springframework.context.ApplicationEvent> {
        final List<Object> received = new CopyOnWriteArrayList<>();
        final List<String> threads = new CopyOnWriteArrayList<>();

        @Override
        public void onApplicationEvent(org.springframework.context.ApplicationEvent event) {
            if (event instanceof LeadershipElectedEvent || event instanceof LeadershipRevokedEvent) {
                received.add(event);
                threads.add(Thread.currentThread().getName());
            }
        }
    }
}
