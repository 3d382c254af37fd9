package dev.mortise.lock.tck;

import java.time.Duration;
import java.util.Random;

/**
 * The lease lengths the property suite draws from, scaled to the least lease a backend can
 * keep ({@code floor}: 100 ms for most, etcd's minimum TTL for etcd): short and long renewed
 * default leases, short and long explicit leases.
 */
record PropertyLeases(Duration floor) {

    private static final Duration MS_300 = Duration.ofMillis(300);
    private static final Duration MS_400 = Duration.ofMillis(400);
    private static final Duration S_2 = Duration.ofSeconds(2);
    private static final Duration S_5 = Duration.ofSeconds(5);

    /** A client's default (renewed) lease: short (300 ms–2 s) or longer (2–5 s). */
    Duration renewedDefault(Random random) {
        Duration shortTop = max(S_2, floor.multipliedBy(3).dividedBy(2));
        return random.nextBoolean() ? between(random, max(MS_300, floor), shortTop)
                : between(random, shortTop, max(S_5, floor.multipliedBy(5).dividedBy(2)));
    }

    /** A short explicit lease (100–400 ms), sure to expire during a run. */
    Duration explicitShort(Random random) {
        return between(random, floor, max(MS_400, floor.multipliedBy(2)));
    }

    /** A long explicit lease (2–5 s). */
    Duration explicitLong(Random random) {
        return between(random, max(S_2, floor.multipliedBy(2)), longest());
    }

    /** The longest lease the suite ever asks for. */
    Duration longest() {
        return max(S_5, floor.multipliedBy(3));
    }

    static Duration between(Random random, Duration low, Duration high) {
        long span = Math.max(0, high.toMillis() - low.toMillis());
        return low.plusMillis(span == 0 ? 0 : (long) (random.nextDouble() * span));
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }
}
