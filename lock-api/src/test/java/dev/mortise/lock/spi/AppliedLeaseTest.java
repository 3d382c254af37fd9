package dev.mortise.lock.spi;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockException;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostEvent;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.LostReason;
import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.local.LocalLockServer;
import dev.mortise.lock.migration.MigratingLockBackend;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The SPI carries the lease the server applied in its answers (issue 30): a grant carries it, a
 * renewal and a {@code renewAll} answer it, and the core counts local validity from those answers,
 * never from the lease the caller asked for. Time moves only by hand.
 */
class AppliedLeaseTest {

    private final HandTicker ticker = new HandTicker();
    private final LocalLockServer server = new LocalLockServer("applied", ticker);

    /**
     * The in-process backend behind a server that keeps its own lease: grants and renewals answer
     * {@code kept} whatever they ask for (the local server is told the same, so it expires them then).
     */
    private LockBackend keeping(Duration kept) {
        return new ForwardingLockBackend(new LocalLockBackend(server)) {
            @Override
            public Attempt tryAcquire(LockRequest request) {
                Attempt attempt = super.tryAcquire(withLease(request, kept));
                return attempt.grant().map(g -> Attempt.granted(new Grant(g.key(), g.owner(), g.fencingToken(),
                        g.requestedAtNanos(), kept, g.state()))).orElse(attempt);
            }

            @Override
            public Optional<Grant> acquire(LockRequest request, Duration wait) {
                return tryAcquire(request).grant();
            }

            @Override
            public Optional<Duration> renew(Grant grant, Duration lease) {
                return super.renew(grant, kept);
            }

            @Override
            public Renewals renewAll(Collection<Grant> grants, Duration lease) {
                return super.renewAll(grants, kept);
            }
        };
    }

    private static LockRequest withLease(LockRequest request, Duration lease) {
        return new LockRequest(request.key(), request.owner(), lease, request.renewed(), request.mode(),
                request.permits());
    }

    @Test
    void aGrantIsValidNoLongerThanTheLeaseItCarries() {
        try (LockClient locks = LockClient.builder(keeping(Duration.ofSeconds(2))).build()) {
            LockLease lease = locks.acquire(LockSpec.of("k").lease(Duration.ofSeconds(10)));
            List<LockLostEvent> losses = new CopyOnWriteArrayList<>();
            lease.onLost(losses::add);
            assertThat(lease.remaining()).isLessThanOrEqualTo(Duration.ofSeconds(2));

            ticker.jump(Duration.ofSeconds(2));
            assertThat(lease.isValid()).isFalse();
            assertThat(losses).extracting(LockLostEvent::reason).containsExactly(LostReason.EXPIRED);
        }
    }

    @Test
    void anExtendTheRenewalAnswersShorterIsRefusedAndCountsOnlyTheAnswer() {
        try (LockClient locks = LockClient.builder(keeping(Duration.ofSeconds(2))).build()) {
            LockLease lease = locks.acquire(LockSpec.of("k").lease(Duration.ofSeconds(2)));
            ticker.jump(Duration.ofSeconds(1));
            assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(30)))
                    .isInstanceOf(LockException.class).hasMessageContaining("PT30S").hasMessageContaining("PT2S");
            assertThat(lease.isValid()).isTrue();
            assertThat(lease.remaining()).isLessThanOrEqualTo(Duration.ofSeconds(2));

            ticker.jump(Duration.ofSeconds(2));
            assertThat(lease.isValid()).isFalse();
        }
    }

    @Test
    void theWatchdogCountsWhatRenewAllAnswered() {
        try (LockClient locks = LockClient.builder(keeping(Duration.ofMillis(1500)))
                .defaultLease(Duration.ofSeconds(3)).build()) {
            LockLease lease = locks.acquire("renewed", Duration.ofSeconds(1));
            assertThat(lease.remaining()).isLessThanOrEqualTo(Duration.ofMillis(1500));
            ticker.jump(Duration.ofMillis(1100)); // past the renewal period of a 3 s lease: renewed on the jump
            assertThat(lease.isValid()).isTrue();
            assertThat(lease.remaining()).as("counted from the renewal's 1.5 s answer, not the 3 s asked")
                    .isLessThanOrEqualTo(Duration.ofMillis(1500)).isGreaterThan(Duration.ofMillis(400));
        }
    }

    @Test
    void renewalsAnswerGoneHoldsAndTheLeaseOfEachRenewedOne() {
        Grant a = new Grant("a", "o1", 1, 0, null);
        Grant b = new Grant("b", "o2", 2, 0, null);
        Grant c = new Grant("c", "o3", 3, 0, null);
        Renewals uniform = Renewals.of(Set.of(a), Duration.ofSeconds(5));
        assertThat(uniform.gone()).containsExactly(a);
        assertThat(uniform.applied(a)).isEmpty();
        assertThat(uniform.applied(b)).contains(Duration.ofSeconds(5));

        Renewals each = Renewals.of(Set.of(c), Map.of(a, Duration.ofSeconds(2), b, Duration.ofSeconds(7)));
        assertThat(each.applied(a)).contains(Duration.ofSeconds(2));
        assertThat(each.applied(b)).contains(Duration.ofSeconds(7));
        assertThat(each.applied(c)).isEmpty();
        assertThatThrownBy(() -> Renewals.of(Set.of(), Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Grant("k", "o", 1, 0, Duration.ofSeconds(-1), null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(a.appliedLease()).as("the five-argument grant: the lease asked for is in force").isEmpty();
    }

    @Test
    void aMigrationAnswersTheShorterOfWhatItsTwoStoresApplied() throws Exception {
        LockBackend from = keeping(Duration.ofSeconds(2));
        LockBackend to = new LocalLockBackend(new LocalLockServer("to", ticker));
        try (MigratingLockBackend both = new MigratingLockBackend(from, to)) {
            Grant grant = both.tryAcquire(new LockRequest("k", "o", Duration.ofSeconds(10), false)).grant()
                    .orElseThrow();
            assertThat(grant.appliedLease()).contains(Duration.ofSeconds(2));
            assertThat(both.renew(grant, Duration.ofSeconds(10))).contains(Duration.ofSeconds(2));
            assertThat(both.renewAll(List.of(grant), Duration.ofSeconds(10)).applied(grant))
                    .contains(Duration.ofSeconds(2));
            assertThat(both.release(grant)).isTrue();
            assertThat(both.renew(grant, Duration.ofSeconds(10))).isEmpty();
            assertThat(both.renewAll(List.of(grant), Duration.ofSeconds(10)).gone()).containsExactly(grant);
        }
    }
}
