package dev.mortise.lock.test;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockInspection;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostEvent;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.LockTimeoutException;
import dev.mortise.lock.LostReason;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Each helper of {@link TestLockClient}, observed right after it returns. */
@MortiseLockTest
class TestLockClientTest {

    private static final Duration WAIT = Duration.ofSeconds(2);

    private static List<LockLostEvent> watch(LockLease lease) {
        List<LockLostEvent> losses = new CopyOnWriteArrayList<>();
        lease.onLost(losses::add);
        return losses;
    }

    @Test
    void timeStandsStillUntilAdvanced(TestLockClient locks) {
        LockLease lease = locks.acquire(LockSpec.of("still").lease(Duration.ofSeconds(5)));
        Duration before = lease.remaining();
        assertThat(locks.heldLocks()).hasSize(1);
        assertThat(lease.remaining()).isEqualTo(before);

        locks.advance(Duration.ofSeconds(2));

        assertThat(lease.remaining()).isEqualTo(before.minusSeconds(2));
        assertThat(locks.ticker().elapsed()).isEqualTo(Duration.ofSeconds(2));
        lease.close();
    }

    @Test
    void advanceEndsAnExplicitLeaseAtItsEndAndNotBefore(TestLockClient locks) {
        LockLease lease = locks.acquire(LockSpec.of("explicit").lease(Duration.ofSeconds(10)));
        List<LockLostEvent> losses = watch(lease);
        long token = lease.fencingToken();

        locks.advance(Duration.ofSeconds(9));
        assertThat(lease.isValid()).isTrue();
        assertThat(losses).isEmpty();

        locks.advance(Duration.ofSeconds(1));
        assertThat(lease.isValid()).isFalse();
        assertThat(losses).singleElement().satisfies(lost -> {
            assertThat(lost.reason()).isEqualTo(LostReason.EXPIRED);
            assertThat(lost.fencingToken()).isEqualTo(token);
        });
        assertThat(locks.holders("explicit")).isEmpty();
        assertThat(locks.server().isHeld("explicit")).isFalse();
    }

    @Test
    void advanceRenewsRenewedLeasesOnTheWay(TestLockClient locks) {
        try (LockLease lease = locks.acquire("renewed", WAIT)) {
            List<LockLostEvent> losses = watch(lease);
            locks.advance(Duration.ofHours(1));
            assertThat(lease.isValid()).isTrue();
            assertThat(losses).isEmpty();
            assertThat(locks.fencingToken("renewed")).hasValue(lease.fencingToken());
            assertThat(locks.holder("renewed")).get().extracting(KeyHolder::remaining)
                    .satisfies(left -> assertThat(left).isPositive().isLessThanOrEqualTo(TestLockClient.DEFAULT_LEASE));
        }
        assertThat(locks.holders("renewed")).isEmpty();
    }

    @Test
    void aLingeringHoldEndsWhenTimeReachesItsLinger(TestLockClient locks) {
        LockLease lease = locks.acquire("linger", WAIT);
        lease.closeLingering(Duration.ofMinutes(1));
        assertThat(locks.server().isHeld("linger")).isTrue();

        locks.advance(Duration.ofSeconds(59));
        assertThat(locks.tryAcquire("linger")).isEmpty();

        locks.advance(Duration.ofSeconds(1));
        assertThat(locks.server().isHeld("linger")).isFalse();
        try (LockLease next = locks.acquire("linger", WAIT)) {
            assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
        }
    }

    @Test
    void expireDropsTheHoldAndTellsTheHolderAtOnce(TestLockClient locks) {
        LockLease lease = locks.acquire("exp", WAIT);
        List<LockLostEvent> losses = watch(lease);

        assertThat(locks.expire("exp")).isEqualTo(1);

        assertThat(lease.isValid()).isFalse();
        assertThat(losses).extracting(LockLostEvent::reason).containsExactly(LostReason.EXPIRED);
        assertThat(locks.holders("exp")).isEmpty();
        try (LockLease next = locks.acquire("exp", WAIT)) {
            assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
        }
        assertThat(locks.expire("nobody-holds-this")).isZero();
    }

    @Test
    void expireEndsEveryReaderOfASharedKey(TestLockClient locks) throws Exception {
        LockLease first = locks.acquire(LockSpec.of("shared").shared());
        LockLease second = CompletableFuture.supplyAsync(() -> locks.acquire(LockSpec.of("shared").shared()))
                .get(10, TimeUnit.SECONDS);
        assertThat(locks.holders("shared")).extracting(KeyHolder::mode).containsOnly(LockMode.SHARED).hasSize(2);

        assertThat(locks.expire("shared")).isEqualTo(2);

        assertThat(first.isValid()).isFalse();
        assertThat(second.isValid()).isFalse();
    }

    @Test
    void stealGivesTheKeyToAnotherOwnerWithAHigherToken(TestLockClient locks) {
        LockLease lease = locks.acquire(LockSpec.of("steal").lease(Duration.ofMinutes(5)));
        List<LockLostEvent> losses = watch(lease);

        StolenLock thief = locks.steal("steal", Duration.ofSeconds(20));

        assertThat(thief.fencingToken()).isGreaterThan(lease.fencingToken());
        assertThat(lease.isValid()).isFalse();
        assertThat(losses).extracting(LockLostEvent::reason).containsExactly(LostReason.RENEWAL_REJECTED);
        assertThat(locks.holder("steal")).get().satisfies(holder -> {
            assertThat(holder.stolen()).isTrue();
            assertThat(holder.owner()).isEqualTo(thief.owner());
            assertThat(holder.fencingToken()).isEqualTo(thief.fencingToken());
        });
        assertThat(locks.tryAcquire("steal")).isEmpty();

        locks.advance(Duration.ofSeconds(20)); // the other owner's lease runs out
        try (LockLease again = locks.acquire("steal", WAIT)) {
            assertThat(again.fencingToken()).isGreaterThan(thief.fencingToken());
        }
    }

    @Test
    void aStolenLockCanBeReleasedByItsNewOwner(TestLockClient locks) {
        StolenLock thief = locks.steal("free-key"); // nobody held it: the new owner just takes it
        assertThat(locks.tryAcquire("free-key")).isEmpty();
        assertThat(thief.release()).isTrue();
        assertThat(thief.release()).isFalse();
        try (LockLease lease = locks.acquire("free-key", WAIT)) {
            assertThat(lease.fencingToken()).isGreaterThan(thief.fencingToken());
        }
    }

    @Test
    void loseEndsOneLeaseWithTheReasonAsked(TestLockClient locks) throws Exception {
        LockLease mine = locks.acquire(LockSpec.of("lose").shared());
        LockLease other = CompletableFuture.supplyAsync(() -> locks.acquire(LockSpec.of("lose").shared()))
                .get(10, TimeUnit.SECONDS);
        List<LockLostEvent> losses = watch(mine);

        locks.lose(mine, LostReason.SESSION_LOST);

        assertThat(mine.isValid()).isFalse();
        assertThat(losses).extracting(LockLostEvent::reason).containsExactly(LostReason.SESSION_LOST);
        assertThat(other.isValid()).isTrue();
        assertThat(locks.holders("lose")).extracting(KeyHolder::fencingToken).containsExactly(other.fencingToken());

        locks.lose(other);
        assertThat(locks.awaitLost(other).reason()).isEqualTo(LostReason.RENEWAL_REJECTED);
        assertThatThrownBy(() -> locks.lose(other)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("token " + other.fencingToken());
        assertThatThrownBy(() -> locks.lose(mine, LostReason.CLIENT_CLOSED))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("CLIENT_CLOSED");
    }

    @Test
    void failingRenewalsLetARenewedLeaseRunOut(TestLockClient locks) {
        LockLease lease = locks.acquire("outage", WAIT);
        List<LockLostEvent> losses = watch(lease);

        locks.failRenewals(true);
        locks.advance(Duration.ofSeconds(20)); // renewals fail; validity is what the last one was worth
        assertThat(lease.isValid()).isTrue();
        locks.advance(Duration.ofSeconds(10));

        assertThat(lease.isValid()).isFalse();
        assertThat(losses).singleElement().satisfies(lost -> {
            assertThat(lost.reason()).isEqualTo(LostReason.EXPIRED);
            assertThat(lost.cause()).isInstanceOf(LockBackendException.class)
                    .hasMessageContaining("failRenewals");
        });
    }

    @Test
    void renewalsThatRecoverInTimeKeepTheLease(TestLockClient locks) {
        try (LockLease lease = locks.acquire("blip", WAIT)) {
            locks.failRenewals(true);
            locks.advance(Duration.ofSeconds(20));
            locks.failRenewals(false);
            locks.advance(Duration.ofMinutes(2));
            assertThat(lease.isValid()).isTrue();
        }
    }

    @Test
    void anUnreachableServerFailsAcquiresQuickly(TestLockClient locks) {
        locks.serverUnreachable(true);
        assertThatThrownBy(() -> locks.acquire("down", WAIT)).isInstanceOf(LockBackendException.class);
        locks.serverUnreachable(false);
        locks.acquire("down", WAIT).close();
    }

    @Test
    void waitsAreRealTimeAndNeverHangOnAStoppedTicker(TestLockClient locks) {
        locks.acquire("busy", WAIT);
        try (TestLockClient other = locks.anotherClient()) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> other.acquire("busy", Duration.ofMillis(200)))
                    .isInstanceOf(LockTimeoutException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(200));
        }
    }

    @Test
    void aWaiterGetsTheKeyWhenAdvanceEndsTheHoldersLease(TestLockClient locks) throws Exception {
        LockLease holder = locks.acquire(LockSpec.of("handover").lease(Duration.ofSeconds(30)));
        try (TestLockClient other = locks.anotherClient()) {
            AtomicReference<Thread> waiting = new AtomicReference<>();
            CompletableFuture<LockLease> next = CompletableFuture.supplyAsync(() -> {
                waiting.set(Thread.currentThread());
                return other.acquire("handover", Duration.ofSeconds(30));
            });
            // Let the waiter reach the server's queue (real time, bounded) before time moves.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (locks.server().records("handover") < 2 && System.nanoTime() < deadline) {
                LockSupport.parkNanos(1_000_000);
            }
            locks.advance(Duration.ofSeconds(30));

            LockLease taken = next.get(10, TimeUnit.SECONDS);
            assertThat(holder.isValid()).isFalse();
            assertThat(taken.fencingToken()).isGreaterThan(holder.fencingToken());
            taken.close();
        }
    }

    @Test
    void theHelpersTellTheHolderWhicheverClientOfTheServerItIs(TestLockClient locks) {
        try (TestLockClient other = locks.anotherClient()) {
            LockLease theirs = other.acquire(LockSpec.of("elsewhere").lease(Duration.ofMinutes(1)));
            assertThat(locks.holder("elsewhere")).get().extracting(KeyHolder::fencingToken)
                    .isEqualTo(theirs.fencingToken());

            locks.expire("elsewhere");
            assertThat(theirs.isValid()).isFalse();
            assertThat(other.awaitLost(theirs).reason()).isEqualTo(LostReason.EXPIRED);

            LockLease next = other.acquire("elsewhere", WAIT);
            locks.steal("elsewhere");
            assertThat(next.isValid()).isFalse();

            LockLease renewed = other.acquire("renewed-elsewhere", WAIT);
            locks.failRenewals(true);
            locks.advance(TestLockClient.DEFAULT_LEASE);
            assertThat(renewed.isValid()).isFalse();
        }
    }

    @Test
    void inspectReadsTheServerOnTheTestsTicker(TestLockClient locks) {
        try (LockLease lease = locks.acquire(LockSpec.of("seen").lease(Duration.ofMinutes(1)))) {
            locks.advance(Duration.ofSeconds(10));
            LockInspection seen = locks.inspect("seen");
            assertThat(seen.heldByThisClient()).isTrue();
            assertThat(seen.holders()).singleElement().satisfies(holder -> {
                assertThat(holder.fencingToken()).hasValue(lease.fencingToken());
                assertThat(holder.remaining()).hasValue(Duration.ofSeconds(50));
            });
            assertThat(locks.holder("seen")).get().extracting(KeyHolder::remaining).isEqualTo(Duration.ofSeconds(50));
        }
    }

    @Test
    void awaitLostReturnsALossAlreadyToldAndFailsClearlyOtherwise(TestLockClient locks) {
        LockLease lease = locks.acquire("await", WAIT);
        assertThatThrownBy(() -> locks.awaitLost(lease, Duration.ofMillis(50)))
                .isInstanceOf(AssertionError.class).hasMessageContaining("await").hasMessageContaining("not lost");
        locks.forceRelease("await");
        assertThat(locks.awaitLost(lease).reason()).isEqualTo(LostReason.FORCE_RELEASED);
    }

    @Test
    void timeNeverGoesBack(TestLockClient locks) {
        assertThatThrownBy(() -> locks.advance(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("never goes back");
    }

    @Test
    void theSameClientIsInjectedIntoEveryParameterOfOneTest(TestLockClient a, TestLockClient b) {
        assertThat(a).isSameAs(b);
    }
}
