package dev.mortise.lock.tck;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSpec;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Bad input (DESIGN.md "Semantics" 8): null, blank, over-long and unencodable keys, and non-positive
 * leases and waits, are refused with an {@link IllegalArgumentException} naming what is wrong, and
 * take nothing.
 * Run by every {@link LockBackendContractSuite} as its nested {@code ArgumentErrors} class, with the
 * suite's clients {@code a} and {@code b} and its hooks.
 */
abstract class ArgumentErrorsContract extends NestedContract {

    ArgumentErrorsContract(LockBackendContractSuite suite) {
        super(suite);
    }

    @Test
    void nullKeyIsRejected() {
        assertThatThrownBy(() -> a.tryAcquire((String) null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("null").hasMessageContaining(a.backendName());
    }

    @Test
    void blankKeysAreRejected() {
        for (String blank : List.of("", " ", "\t\n")) {
            assertThatThrownBy(() -> a.acquire(blank, Duration.ofSeconds(1))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("blank").hasMessageContaining(a.backendName());
        }
    }

    @Test
    void overLongKeyIsRejectedNamingTheLimit() {
        String key = "k".repeat(513);
        assertThatThrownBy(() -> a.tryAcquire(key)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("512").hasMessageContaining(a.backendName()).hasMessageContaining("maxKeyBytes");
        String multiByte = "日".repeat(171);
        assertThatThrownBy(() -> a.tryAcquire(multiByte)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void keysWithUnpairedSurrogatesAreRejected() {
        // Such strings have no UTF-8 form: encoders would turn them into '?', and two keys into one lock.
        for (String broken : List.of("a\uD800", "a\uDC00b", "\uDC00\uD800")) {
            assertThatThrownBy(() -> a.tryAcquire(broken)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("surrogate").hasMessageContaining(a.backendName());
        }
        assertThat(a.tryAcquire(key() + "\uD83D\uDD12")).as("a paired surrogate is fine").hasValueSatisfying(LockLease::close);
    }

    @Test
    void zeroAndNegativeLeasesAreRejected() {
        String key = key();
        for (Duration lease : List.of(Duration.ZERO, Duration.ofMillis(-1))) {
            assertThatThrownBy(() -> a.acquire(LockSpec.of(key).lease(lease))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(key).hasMessageContaining("positive");
        }
        assertThat(b.tryAcquire(key)).as("nothing was taken").hasValueSatisfying(LockLease::close);
    }

    @Test
    void negativeAndNullWaitsAreRejected() {
        String key = key();
        assertThatThrownBy(() -> a.acquire(key, Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(key);
        assertThatThrownBy(() -> a.tryAcquire(key, null)).isInstanceOf(IllegalArgumentException.class);
    }
}
