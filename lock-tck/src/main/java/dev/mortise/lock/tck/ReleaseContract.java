package dev.mortise.lock.tck;

import dev.mortise.lock.LockContext;
import dev.mortise.lock.LockLease;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Release: a release leaves only the fencing state behind, a second close does nothing (and never
 * releases the next holder), and a lease may be closed on another thread.
 * Run by every {@link LockBackendContractSuite} as its nested {@code Release} class, with the
 * suite's clients {@code a} and {@code b} and its hooks.
 */
abstract class ReleaseContract extends NestedContract {

    ReleaseContract(LockBackendContractSuite suite) {
        super(suite);
    }

    @Test
    void releaseLeavesNothingBehindButTheFencingState() throws Exception {
        String key = key();
        a.acquire(key, Duration.ofSeconds(5)).close();
        assertThat(residueOnServer(key)).isZero();
    }

    @Test
    void closingTwiceIsANoOp() {
        String key = key();
        LockLease lease = a.acquire(key, Duration.ofSeconds(5));
        lease.close();
        try (LockLease other = b.acquire(key, Duration.ofSeconds(5))) {
            lease.close();
            assertThat(other.isValid()).isTrue();
            assertThat(newClientTry(key)).isEmpty();
        }
    }

    @Test
    void leaseCanBeClosedOnAnotherThread() throws Exception {
        String key = key();
        LockLease lease = a.acquire(key, Duration.ofSeconds(5));
        CompletableFuture.runAsync(lease::close).get(30, TimeUnit.SECONDS);
        assertThat(LockContext.find(key)).isEmpty();
        assertThat(b.tryAcquire(key)).hasValueSatisfying(LockLease::close);
        assertThat(a.tryAcquire(key)).as("the acquiring thread can lock again").hasValueSatisfying(LockLease::close);
    }

    private Optional<LockLease> newClientTry(String key) {
        try {
            return newClient().tryAcquire(key);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
