package dev.mortise.lock.tck;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostException;
import dev.mortise.lock.LockSpec;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Fencing (DESIGN.md "Semantics" 5): tokens strictly increase per key across clients, releases,
 * contention and expired leases.
 * Run by every {@link LockBackendContractSuite} as its nested {@code Fencing} class, with the
 * suite's clients {@code a} and {@code b} and its hooks.
 */
abstract class FencingContract extends NestedContract {

    FencingContract(LockBackendContractSuite suite) {
        super(suite);
    }

    @Test
    void tokensStrictlyIncreaseAcrossClientsAndReleases() {
        String key = key();
        long last = Long.MIN_VALUE;
        for (int i = 0; i < 10; i++) {
            for (LockClient client : List.of(a, b)) {
                try (LockLease lease = client.acquire(key, Duration.ofSeconds(5))) {
                    assertThat(lease.fencingToken()).isGreaterThan(last);
                    last = lease.fencingToken();
                }
            }
        }
    }

    @Test
    void tokensIncreaseInGrantOrderUnderContention() throws Exception {
        String key = key();
        List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (LockClient client : List.of(a, b, a, b)) {
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < 10; i++) {
                        try (LockLease lease = client.acquire(key, Duration.ofSeconds(60))) {
                            tokens.add(lease.fencingToken());
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> future : futures) {
                future.get(100, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(tokens).hasSize(40);
        for (int i = 1; i < tokens.size(); i++) {
            assertThat(tokens.get(i)).as("token %d after %d", i, i - 1).isGreaterThan(tokens.get(i - 1));
        }
    }

    @Test
    void tokenKeepsIncreasingAfterAnExpiredLease() throws Exception {
        String key = key();
        LockLease expired = a.acquire(LockSpec.of(key).lease(shortLease()));
        long nextToken;
        try (LockLease next = b.acquire(key, shortLease().plus(SLACK))) {
            nextToken = next.fencingToken();
            assertThat(nextToken).isGreaterThan(expired.fencingToken());
        }
        assertThatThrownBy(expired::close).isInstanceOf(LockLostException.class);
        try (LockLease third = a.acquire(key, Duration.ofSeconds(5))) {
            assertThat(third.fencingToken()).isGreaterThan(nextToken);
        }
    }
}
