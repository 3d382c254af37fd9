package dev.mortise.lock.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the method only on the instance that currently leads the group, and skips it elsewhere:
 * for {@code @Scheduled} jobs every instance schedules but only the leader should do.
 *
 * <pre>{@code
 * @Scheduled(fixedDelay = 60_000)
 * @LeaderOnly("billing")
 * void closeTheDay() { ... }
 * }</pre>
 *
 * <p>The group is configured with {@code mortise.lock.leadership.<group>.*} (see
 * docs/spring-boot.md, "Leader election"); a call for a group that is not configured throws
 * {@link IllegalStateException} naming the property to set. Leadership is checked once, when the
 * call starts ({@link Leadership#isLeader()}: the leadership lease is valid); work that must not
 * outlive the term passes {@link Leadership#epoch()} as a fencing token to what it writes.
 *
 * <p>A skipped call logs at debug level and returns {@code null}, an empty {@code Optional}
 * ({@code OptionalInt}, ...), {@code 0} or {@code false} for a primitive, an already completed
 * {@code CompletableFuture} of {@code null}, or an empty {@code Mono}/{@code Flux}. Applied through
 * Spring AOP proxies, so calls from a bean to itself are not checked.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface LeaderOnly {

    /** The leadership group, as configured under {@code mortise.lock.leadership.<group>}. */
    String value();
}
