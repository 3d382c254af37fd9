package dev.mortise.lock.tck;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockException;
import dev.mortise.lock.LockInspection;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.LockSpec;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The inspection part of the contract ({@link LockClient#inspect(String)} over
 * {@code LockBackend.inspect}), run by every backend's contract test through the {@code @Nested}
 * class {@code LockBackendContractSuite.Inspection}: no new file per backend. It uses the enclosing
 * test's clients {@code a} and {@code b} (two processes on one server), its keys and its
 * {@code residueOnServer} hook.
 *
 * <p>What a backend may leave out is what {@code KeyState} lets it: a token, a remaining lease,
 * the waiter count. What it reports must be right: the holder of a key and only it, with the id
 * its lease shows ({@link LockLease#holderId()}), its token equal to the lease's, its remaining
 * lease within the lease asked for; the mode; at least one waiter while one waits. Inspection
 * is read-only: it leaves nothing on the server and does not disturb the fencing counter.
 *
 * <p>Fast: no test sleeps through a lease; the suite takes a few seconds on a local server. Tagged
 * {@code inspection}, so it runs alone with {@code -Dgroups=inspection -Dtest=<the contract test>}.
 */
@Tag("inspection")
public abstract class InspectionContract extends NestedContract {

    /** The explicit lease of the holds inspected here: whole seconds (an etcd TTL), longer than any test. */
    private static final Duration LEASE = Duration.ofSeconds(20);
    /** What a server's remaining lease may exceed the lease by (TTLs rounded up to a whole second). */
    private static final Duration TOLERANCE = Duration.ofMillis(1500);
    private static final Duration WAIT = Duration.ofSeconds(10);

    protected InspectionContract(LockBackendContractSuite contract) {
        super(contract);
    }

    private static LockSpec held(String key) {
        return LockSpec.of(key).lease(LEASE).waitFor(WAIT);
    }

    private void assertFree(LockInspection inspection, String key) {
        assertThat(inspection.key()).isEqualTo(key);
        assertThat(inspection.backend()).isEqualTo(a.backendName());
        assertThat(inspection.held()).as("held").isFalse();
        assertThat(inspection.mode()).as("mode of a free key").isNull();
        assertThat(inspection.holders()).isEmpty();
        assertThat(inspection.heldByThisClient()).isFalse();
    }

    /** The one holder of an exclusive hold, checked against its lease. */
    private void assertHolder(LockInspection.Holder holder, LockLease lease, Duration leaseAsked, boolean ours) {
        assertThat(holder.holderId()).as("holder id").isEqualTo(lease.holderId());
        holder.fencingToken().ifPresent(token -> assertThat(token).as("token").isEqualTo(lease.fencingToken()));
        holder.remaining().ifPresent(remaining -> assertThat(remaining).as("remaining lease")
                .isPositive().isLessThanOrEqualTo(leaseAsked.plus(TOLERANCE)));
        assertThat(holder.heldByThisClient()).as("heldByThisClient").isEqualTo(ours);
    }

    // ---- the tests -----------------------------------------------------------------------

    @Test
    void aFreeKeyIsNotHeld() {
        String key = key();
        LockInspection inspection = a.inspect(key);
        assertFree(inspection, key);
        inspection.waiters().ifPresent(w -> assertThat(w).as("waiters of a key no one asked for").isZero());
        assertThat(inspection.readAt()).isNotNull();
    }

    @Test
    void anExclusiveHoldShowsItsOneHolderOnEveryClient() {
        String key = key();
        try (LockLease lease = a.acquire(held(key))) {
            LockInspection mine = a.inspect(key);
            assertThat(mine.key()).isEqualTo(key);
            assertThat(mine.held()).isTrue();
            assertThat(mine.mode()).isEqualTo(LockMode.EXCLUSIVE);
            assertThat(mine.holders()).singleElement().satisfies(h -> assertHolder(h, lease, LEASE, true));
            assertThat(mine.heldByThisClient()).isTrue();

            LockInspection theirs = b.inspect(key);
            assertThat(theirs.mode()).isEqualTo(LockMode.EXCLUSIVE);
            assertThat(theirs.holders()).singleElement().satisfies(h -> assertHolder(h, lease, LEASE, false));
            assertThat(theirs.heldByThisClient()).isFalse();
        }
        assertFree(a.inspect(key), key);
        assertFree(b.inspect(key), key);
    }

    @Test
    void aRenewedHoldAndItsNestedLeasesAreOneHolder() {
        String key = key();
        try (LockLease outer = a.acquire(key, WAIT); LockLease nested = a.acquire(key, WAIT)) {
            assertThat(nested.holderId()).as("a nested lease shares its hold's id").isEqualTo(outer.holderId());
            assertThat(b.inspect(key).holders()).singleElement()
                    .satisfies(h -> assertHolder(h, outer, contract.watchdogLease(), false));
        }
        try (LockLease next = b.acquire(key, WAIT)) {
            LockInspection inspection = a.inspect(key);
            assertThat(inspection.holders()).singleElement().satisfies(h -> {
                assertThat(h.holderId()).as("every hold has its own id").isEqualTo(next.holderId());
                assertThat(h.heldByThisClient()).isFalse();
            });
        }
    }

    @Test
    void sharedHoldsShowEveryReader() throws Exception {
        String key = key();
        if (!contract.supportsSharedMode()) {
            // The clear refusal, and the refused request left no holder behind.
            assertThatThrownBy(() -> a.acquire(LockSpec.of(key).shared().waitFor(WAIT)))
                    .isInstanceOf(LockException.class).hasMessageContaining("supportsSharedMode");
            assertFree(b.inspect(key), key);
            return;
        }
        try (LockLease one = a.acquire(held(key).shared()); LockLease two = b.acquire(held(key).shared())) {
            LockInspection inspection = a.inspect(key);
            assertThat(inspection.mode()).isEqualTo(LockMode.SHARED);
            assertThat(inspection.holders()).as("one holder per reader").hasSize(2);
            assertThat(inspection.holders()).extracting(LockInspection.Holder::holderId)
                    .containsExactlyInAnyOrder(one.holderId(), two.holderId());
            for (LockInspection.Holder holder : inspection.holders()) {
                boolean ours = holder.holderId().equals(one.holderId());
                assertHolder(holder, ours ? one : two, LEASE, ours);
            }
        }
        assertFree(a.inspect(key), key);
    }

    @Test
    void aWaiterOfAnotherClientIsCountedWhereTheServerKnows() throws Exception {
        String key = key();
        CompletableFuture<Optional<Long>> waited = new CompletableFuture<>();
        long first;
        try (LockLease lease = a.acquire(held(key))) {
            first = lease.fencingToken();
            start(() -> {
                try {
                    waited.complete(b.tryAcquire(key, Duration.ofSeconds(30)).map(l -> {
                        long token = l.fencingToken();
                        l.close();
                        return token;
                    }));
                } catch (RuntimeException e) {
                    waited.completeExceptionally(e);
                }
            });
            // Where the server counts waiters, until it sees b's; where it cannot tell, at once.
            LockInspection inspection = a.inspect(key);
            long deadline = System.nanoTime() + LockBackendContractSuite.SLACK.toNanos();
            while (inspection.waiters().orElse(1) < 1 && System.nanoTime() - deadline < 0) {
                Thread.sleep(20);
                inspection = a.inspect(key);
            }
            inspection.waiters().ifPresent(w -> assertThat(w).as("waiters while b waits").isGreaterThanOrEqualTo(1));
            assertThat(inspection.holders()).as("a waiter is not a holder").singleElement()
                    .satisfies(h -> assertHolder(h, lease, LEASE, true));
        }
        assertThat(waited.get(WAIT.toSeconds() + 30, TimeUnit.SECONDS)).as("b got the key after a released it")
                .hasValueSatisfying(token -> assertThat(token).isGreaterThan(first));
        assertFree(a.inspect(key), key);
    }

    @Test
    void inspectionIsReadOnly() throws Exception {
        String key = key();
        a.inspect(key);
        b.inspect(key);
        assertThat(contract.residueOnServer(key)).as("records after inspecting a free key").isZero();
        long first;
        try (LockLease lease = a.acquire(held(key))) {
            first = lease.fencingToken();
            int records = contract.residueOnServer(key);
            a.inspect(key);
            b.inspect(key);
            assertThat(contract.residueOnServer(key)).as("records after inspecting a held key").isEqualTo(records);
            assertThat(lease.isValid()).isTrue();
            assertThat(b.tryAcquire(key)).as("inspection does not let anyone in").isEmpty();
        }
        a.inspect(key);
        assertThat(contract.residueOnServer(key)).as("records after release and inspection").isZero();
        try (LockLease next = b.acquire(held(key))) {
            assertThat(next.fencingToken()).as("the next grant's token").isGreaterThan(first);
            assertThat(a.inspect(key).holders()).singleElement()
                    .satisfies(h -> h.fencingToken().ifPresent(t -> assertThat(t).isEqualTo(next.fencingToken())));
        }
    }

    @Test
    void keysWithAnyFirstCharacterAndUnicodeAreInspected() {
        String base = key();
        for (String key : List.of("/" + base, "{" + base + "}", "%" + base, " " + base, "#" + base,
                "ключ-" + base + "-🔒", "." + base + "/../x")) {
            assertFree(a.inspect(key), key);
            try (LockLease lease = a.acquire(held(key))) {
                LockInspection inspection = b.inspect(key);
                assertThat(inspection.key()).isEqualTo(key);
                assertThat(inspection.holders()).as(key).singleElement()
                        .satisfies(h -> assertHolder(h, lease, LEASE, false));
            }
            assertFree(b.inspect(key), key);
        }
    }

    @Test
    void badKeysAreRefusedAsAcquireRefusesThem() {
        for (String bad : new String[] {null, "", "  ", "x".repeat(100_000)}) {
            String expected;
            try {
                a.tryAcquire(bad);
                throw new AssertionError("acquire accepted the bad key");
            } catch (IllegalArgumentException e) {
                expected = e.getMessage();
            }
            assertThatThrownBy(() -> a.inspect(bad)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(expected);
        }
    }

    private void start(Runnable body) {
        startThread("tck-inspect", body);
    }
}
