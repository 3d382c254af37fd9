package dev.mortise.lock.spi;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class BackoffPollingTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    @Test
    void sleepIsJitteredWithinHalfToFullCeiling() {
        long ceiling = 100 * MS;
        long min = Long.MAX_VALUE;
        long max = 0;
        for (int i = 0; i < 2000; i++) {
            long sleep = BackoffPolling.nextSleep(ceiling, null, Long.MAX_VALUE);
            min = Math.min(min, sleep);
            max = Math.max(max, sleep);
        }
        assertThat(min).isGreaterThanOrEqualTo(ceiling / 2);
        assertThat(max).isLessThanOrEqualTo(ceiling);
        assertThat(max - min).as("jitter spreads the sleeps").isGreaterThan(ceiling / 4);
    }

    @Test
    void sleepIsBoundedByTheHoldersRemainingLeaseAndTheDeadline() {
        long ceiling = 400 * MS;
        assertThat(BackoffPolling.nextSleep(ceiling, Duration.ofMillis(10), Long.MAX_VALUE)).isLessThanOrEqualTo(11 * MS);
        assertThat(BackoffPolling.nextSleep(ceiling, null, 3 * MS)).isLessThanOrEqualTo(3 * MS);
        assertThat(BackoffPolling.nextSleep(ceiling, Duration.ZERO, Long.MAX_VALUE)).isLessThanOrEqualTo(MS);
    }

    @Test
    void deadlinesSaturateInsteadOfOverflowing() {
        long now = System.nanoTime();
        long deadline = Deadlines.after(now, Duration.ofSeconds(Long.MAX_VALUE));
        assertThat(deadline - now).isPositive();
        assertThat(Deadlines.left(deadline)).isPositive();
        assertThat(Deadlines.left(Deadlines.after(now, Duration.ZERO))).isZero();
    }
}
