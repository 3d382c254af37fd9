package dev.mortise.lock;

import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.local.LocalLockServer;
import dev.mortise.lock.spi.ForwardingLockBackend;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.LockRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The native semaphore of the in-process backend ({@link LocalLockBackend#supportsPermits()}): one
 * request per acquisition and per release, one server hold per acquisition, several threads of one
 * client holding permits at once (the local gate does not serialise them), the count kept on the
 * server. The backend-independent rules are in lock-tck's SemaphoreContract.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NativeSemaphoreTest {

    /** Counts the acquire and release requests that reach the server. */
    static final class Counting extends ForwardingLockBackend {
        final AtomicInteger acquires = new AtomicInteger();
        final AtomicInteger releases = new AtomicInteger();
        final List<LockRequest> requests = new CopyOnWriteArrayList<>();

        Counting(LockBackend delegate) {
            super(delegate);
        }

        @Override
        public dev.mortise.lock.spi.Attempt tryAcquire(LockRequest request) {
            acquires.incrementAndGet();
            requests.add(request);
            return super.tryAcquire(request);
        }

        @Override
        public Optional<Grant> acquire(LockRequest request, Duration wait) throws InterruptedException {
            acquires.incrementAndGet();
            requests.add(request);
            return super.acquire(request, wait);
        }

        @Override
        public boolean release(Grant grant) {
            releases.incrementAndGet();
            return super.release(grant);
        }
    }

    private final LocalLockServer server = new LocalLockServer();
    private final Counting counting = new Counting(new LocalLockBackend(server));
    private final LockClient client = LockClient.builder(counting).defaultLease(Duration.ofSeconds(5)).build();

    @AfterEach
    void close() {
        client.close();
    }

    @Test
    void anAcquisitionOfNPermitsIsOneRequestOneHoldAndOneRelease() {
        LockSemaphore semaphore = client.semaphore("jobs", 5);
        assertThat(semaphore.isNative()).isTrue();
        try (PermitLease three = semaphore.acquire(3, Duration.ofSeconds(1))) {
            assertThat(counting.acquires).hasValue(1);
            assertThat(counting.requests.get(0).permits()).isEqualTo(new dev.mortise.lock.spi.Permits(3, 5));
            assertThat(counting.requests.get(0).key()).isEqualTo("jobs#permits");
            assertThat(three.parts()).hasSize(1);
            assertThat(client.inspect("jobs#permits").holders()).hasSize(1);
        }
        assertThat(counting.releases).hasValue(1);
        assertThat(server.records("jobs#permits")).isZero();
    }

    @Test
    void threadsOfOneClientHoldPermitsAtOnce() throws Exception {
        LockSemaphore semaphore = client.semaphore("pool", 3);
        CountDownLatch allHold = new CountDownLatch(3);
        CountDownLatch release = new CountDownLatch(1);
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            threads.add(new Thread(() -> {
                try (PermitLease permit = semaphore.acquire(Duration.ofSeconds(5))) {
                    allHold.countDown();
                    release.await();
                } catch (Throwable t) {
                    failures.add(t);
                }
            }));
        }
        threads.forEach(Thread::start);
        assertThat(allHold.await(10, TimeUnit.SECONDS)).as("three threads of one client hold a permit each").isTrue();
        assertThat(semaphore.tryAcquire()).isEmpty();
        release.countDown();
        for (Thread thread : threads) {
            thread.join(10_000);
        }
        assertThat(failures).isEmpty();
        assertThat(server.records("pool#permits")).isZero();
    }

    @Test
    void permitsDoNotNestInTheThreadsOtherHolds() {
        LockSemaphore semaphore = client.semaphore("nest", 2);
        try (PermitLease first = semaphore.acquire(Duration.ofSeconds(1));
             PermitLease second = semaphore.acquire(Duration.ofSeconds(1))) {
            assertThat(second.fencingTokens().get(0)).isGreaterThan(first.fencingTokens().get(0));
            assertThat(semaphore.tryAcquire()).isEmpty();
        }
    }
}
