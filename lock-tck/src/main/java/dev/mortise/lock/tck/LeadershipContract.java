package dev.mortise.lock.tck;

import dev.mortise.lock.LeaderElection;
import dev.mortise.lock.LeadershipListener;
import dev.mortise.lock.LeadershipRevoked;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LostReason;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The leader-election contract ({@link LeaderElection}) against a backend's real server, run by
 * every {@link LockBackendContractSuite} as its nested {@code Leadership} class: three candidates on
 * three clients (as three processes) elect a leader of one group while the leader steps down, is
 * force-released, is cut off from the server, closes, or dies without releasing.
 *
 * <p>Checked throughout, by a sampler that reads every candidate continuously: at no instant do
 * two candidates lead (see {@link Sampler} for why its reading is sound), and the epochs of
 * successive leaders strictly increase. Checked on the callbacks: each candidate is told elected,
 * revoked, elected, ... in order, with growing epochs, never on a watchdog, expiry or backend
 * thread, and is told revoked when it loses the lease. Every wait is "eventually, within the lease
 * and generous slack"; nothing here measures speed.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
public class LeadershipContract {

    /** Slack on top of a lease for "a new leader eventually": wide, CI machines are loaded. */
    static final Duration SLACK = Duration.ofSeconds(10);

    private final LockBackendContractSuite test;

    /** @param test the backend's contract test, whose clients, server and hold breaking are used */
    protected LeadershipContract(LockBackendContractSuite test) {
        this.test = test;
    }

    // ---- the tests --------------------------------------------------------------------------

    @Test
    void oneLeaderAtATimeWithGrowingEpochsThroughStepDownForceReleaseCutOffAndClose() throws Exception {
        String key = test.key("leader");
        List<Candidate> candidates = candidates(key, 3);
        Sampler sampler = new Sampler(candidates);
        sampler.start();
        try {
            Leader first = sampler.saw(awaitLeader(candidates, -1, "a first leader"));
            boolean steppedDown = first.candidate.election.stepDown();
            Leader second = sampler.saw(awaitLeader(candidates, first.epoch, "a leader after the first stepped down"));
            first.candidate.awaitTermEnded(LeadershipRevoked.Reason.STEPPED_DOWN, first.epoch);
            assertThat(steppedDown || first.candidate.expiredOnItsOwn(first.epoch))
                    .as("stepDown() of a leader is true (or its term had already run out: " + first.candidate + ")")
                    .isTrue();

            // An operator ends the hold: the leader loses its lease, is told so, and contends again.
            second.candidate.client.forceRelease(key);
            second.candidate.awaitRevoked(LeadershipRevoked.Reason.LOST, second.epoch);
            Leader third = sampler.saw(awaitLeader(candidates, second.epoch, "a leader after a force-release"));

            // The leader is cut off: its renewals fail until its lease runs out.
            FaultInjectingBackend faults = third.candidate.faults;
            faults.plan((operation, k) -> operation == FaultInjectingBackend.Operation.RENEW
                    || operation == FaultInjectingBackend.Operation.RENEW_ALL ? FaultInjectingBackend.Injection.fail() : null);
            // Told LOST (the callback history, not a poll of isLeader(): a cut-off candidate contends
            // again at once and may lead again with a new epoch, so "not leading" can be a moment
            // a loaded machine's poll misses).
            third.candidate.awaitRevoked(LeadershipRevoked.Reason.LOST, third.epoch);
            faults.heal();
            Leader fourth = sampler.saw(awaitLeader(candidates, third.epoch, "a leader after the leader was cut off"));

            fourth.candidate.election.close();
            assertThat(fourth.candidate.election.isLeader()).isFalse();
            assertThat(fourth.candidate.election.isRunning()).isFalse();
            fourth.candidate.awaitTermEnded(LeadershipRevoked.Reason.CLOSED, fourth.epoch);
            Leader fifth = sampler.saw(awaitLeader(candidates, fourth.epoch, "a leader after the leader closed"));
            assertThat(fifth.candidate).isNotSameAs(fourth.candidate);
        } finally {
            sampler.stop();
        }
        sampler.assertHeld();
        for (Candidate candidate : candidates) {
            candidate.assertCallbacksInOrderOffClientThreads();
        }
        assertThat(candidates.stream().mapToInt(c -> c.elected().size()).sum())
                .as("terms elected").isGreaterThanOrEqualTo(5);
    }

    @Test
    void aLeaderThatDiesWithoutReleasingIsSucceededWithinItsLease() throws Exception {
        String key = test.key("leader");
        List<Candidate> candidates = candidates(key, 3);
        Sampler sampler = new Sampler(candidates);
        sampler.start();
        try {
            Leader leader = sampler.saw(awaitLeader(candidates, -1, "a first leader"));
            Candidate dead = leader.candidate;
            // The process dies: nothing reaches the server any more, so its hold stays until the lease runs out.
            dead.faults.plan((operation, k) -> FaultInjectingBackend.Injection.fail());
            dead.client.close();
            long died = System.nanoTime();
            assertThat(dead.election.isLeader()).isFalse();
            Leader next = awaitLeader(candidates, leader.epoch, "a new leader after the leader died");
            assertThat(Duration.ofNanos(System.nanoTime() - died)).isLessThan(lease().plus(SLACK));
            assertThat(sampler.saw(next).candidate).isNotSameAs(dead);
            dead.awaitRevoked(LeadershipRevoked.Reason.LOST);
            // CLIENT_CLOSED, or EXPIRED if a loaded machine let the lease run out before the close.
            assertThat(dead.revoked()).last().extracting(LeadershipRevoked::lostReason)
                    .isIn(LostReason.CLIENT_CLOSED, LostReason.EXPIRED);
            test.await(SLACK, () -> !dead.election.isRunning(), "the dead client's election to end");
        } finally {
            sampler.stop();
        }
        sampler.assertHeld();
        for (Candidate candidate : candidates) {
            candidate.assertCallbacksInOrderOffClientThreads();
        }
    }

    @Test
    void closingEveryCandidateLeavesNothingOnTheServer() throws Exception {
        String key = test.key("leader");
        List<Candidate> candidates = candidates(key, 3);
        Leader leader = awaitLeader(candidates, -1, "a leader");
        for (Candidate candidate : candidates) {
            candidate.election.close();
            assertThat(candidate.election.isLeader()).isFalse();
            assertThat(candidate.election.epoch()).isEmpty();
        }
        leader.candidate.awaitTermEnded(LeadershipRevoked.Reason.CLOSED, leader.epoch);
        test.await(SLACK, () -> residue(key) == 0, "no lock entry or waiter left for " + key);
        for (Candidate candidate : candidates) {
            candidate.assertCallbacksInOrderOffClientThreads();
        }
    }

    // ---- candidates ---------------------------------------------------------------------------

    private Duration lease() {
        return test.watchdogLease();
    }

    private int residue(String key) {
        try {
            return test.residueOnServer(key);
        } catch (Exception e) {
            throw new AssertionError("could not read the server's records of " + key, e);
        }
    }

    /** {@code count} candidates of one group, each on a client of its own over a backend that can be cut off. */
    private List<Candidate> candidates(String key, int count) throws Exception {
        List<Candidate> candidates = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            FaultInjectingBackend faults = new FaultInjectingBackend(test.newBackend());
            LockClient client = test.track(LockClient.builder(faults).defaultLease(lease()).build());
            Candidate candidate = new Candidate("c" + i, client, faults);
            candidate.election = client.leadership("tck").key(key).listener(candidate)
                    .listener(new LeadershipListener() {
                        @Override
                        public void onElected(long epoch) {
                            throw new IllegalStateException("a broken listener must not disturb the election");
                        }
                    })
                    .retryPause(Duration.ofMillis(200)).stepDownPause(Duration.ofMillis(500)).start();
            candidates.add(candidate);
        }
        return candidates;
    }

    /** A candidate seen leading, with the epoch it was seen with. */
    record Leader(Candidate candidate, long epoch) {
    }

    /** Waits, up to the lease and generous slack, for a candidate that leads with an epoch above {@code above}. */
    private Leader awaitLeader(List<Candidate> candidates, long above, String what) throws InterruptedException {
        Leader[] found = new Leader[1];
        test.await(lease().plus(SLACK), () -> {
            for (Candidate candidate : candidates) {
                OptionalLong epoch = candidate.election.epoch();
                if (epoch.isPresent() && epoch.getAsLong() > above) {
                    found[0] = new Leader(candidate, epoch.getAsLong());
                    return true;
                }
            }
            return false;
        }, what + " (epoch above " + above + "); candidates told " + candidates);
        return found[0];
    }

    /** One candidate: its client, its fault switch, its election and what its listener was told. */
    static final class Candidate implements LeadershipListener {
        final String name;
        final LockClient client;
        final FaultInjectingBackend faults;
        volatile LeaderElection election;
        /** Every callback in order: an Long epoch for elected, a LeadershipRevoked for revoked. */
        final List<Object> calls = new CopyOnWriteArrayList<>();
        final List<String> threads = new CopyOnWriteArrayList<>();

        Candidate(String name, LockClient client, FaultInjectingBackend faults) {
            this.name = name;
            this.client = client;
            this.faults = faults;
        }

        @Override
        public void onElected(long epoch) {
            threads.add(Thread.currentThread().getName());
            calls.add(epoch);
        }

        @Override
        public void onRevoked(LeadershipRevoked revoked) {
            threads.add(Thread.currentThread().getName());
            calls.add(revoked);
        }

        List<Long> elected() {
            return calls.stream().filter(Long.class::isInstance).map(Long.class::cast).toList();
        }

        List<LeadershipRevoked> revoked() {
            return calls.stream().filter(LeadershipRevoked.class::isInstance).map(LeadershipRevoked.class::cast)
                    .toList();
        }

        void awaitRevoked(LeadershipRevoked.Reason reason) throws InterruptedException {
            LockBackendContractSuite.await(SLACK.plus(SLACK), () -> revoked().stream().anyMatch(r -> r.reason() == reason),
                    name + " to be told revoked (" + reason + "); told " + calls);
        }

        /** Told revoked for {@code reason} in the term of {@code epoch} (not an earlier term's revocation). */
        void awaitRevoked(LeadershipRevoked.Reason reason, long epoch) throws InterruptedException {
            LockBackendContractSuite.await(SLACK.plus(SLACK),
                    () -> revoked().stream().anyMatch(r -> r.reason() == reason && r.epoch() == epoch),
                    name + " to be told revoked (" + reason + ") in term " + epoch + "; told " + calls);
        }

        /**
         * Told the term of {@code epoch} ended for {@code reason}, or lost because its lease ran
         * out ({@code EXPIRED}) before the test could end it: on a loaded machine a grant can come
         * back with milliseconds of its lease left and expire before the first renewal lands (seen
         * in CI: a leader told EXPIRED 8 ms into its term, before the test closed it).
         */
        void awaitTermEnded(LeadershipRevoked.Reason reason, long epoch) throws InterruptedException {
            LockBackendContractSuite.await(SLACK.plus(SLACK),
                    () -> revoked().stream().anyMatch(r -> r.epoch() == epoch
                            && (r.reason() == reason || expired(r))),
                    name + " to be told revoked (" + reason + ", or LOST by EXPIRED) in term " + epoch
                            + "; told " + calls);
        }

        /** Whether the term of {@code epoch} was told lost because its lease ran out by itself. */
        boolean expiredOnItsOwn(long epoch) throws InterruptedException {
            awaitTermEnded(LeadershipRevoked.Reason.LOST, epoch);
            return revoked().stream().anyMatch(r -> r.epoch() == epoch && expired(r));
        }

        private static boolean expired(LeadershipRevoked revoked) {
            return revoked.reason() == LeadershipRevoked.Reason.LOST && revoked.lostReason() == LostReason.EXPIRED;
        }

        void assertCallbacksInOrderOffClientThreads() {
            assertThat(threads).as(name + "'s callback threads").allSatisfy(thread -> {
                assertThat(thread).startsWith("mortise-leadership-");
                assertThat(thread).doesNotContain("watchdog", "expiry", "onlost", "notify");
            });
            long previous = Long.MIN_VALUE;
            for (int i = 0; i < calls.size(); i++) {
                Object call = calls.get(i);
                if (i % 2 == 0) {
                    assertThat(call).as(name + "'s callback " + i + " of " + calls).isInstanceOf(Long.class);
                    assertThat((Long) call).as(name + "'s epochs " + calls).isGreaterThan(previous);
                    previous = (Long) call;
                } else {
                    assertThat(call).as(name + "'s callback " + i + " of " + calls).isInstanceOf(LeadershipRevoked.class);
                    assertThat(((LeadershipRevoked) call).epoch()).as(name + "'s revoked epoch " + calls)
                            .isEqualTo(previous);
                }
            }
        }

        @Override
        public String toString() {
            return name + calls;
        }
    }

    /**
     * Reads every candidate's {@link LeaderElection#epoch()} continuously, in two passes per
     * sample, and records any instant at which two of them led.
     *
     * <p>Why two passes: reading A at t1 and B at t2 &gt; t1 and seeing both lead proves nothing
     * (A may have stopped between). But a term is an interval with one epoch: if A shows the same
     * epoch at t1 and again at t3 &gt; t2, A led throughout [t1, t3], so A and B led together at
     * t2. For candidates i &lt; j, pass one reads i, then j, and pass two reads i again; for
     * i &gt; j, pass one reads i, pass two reads j, then i again.
     */
    final class Sampler {
        private final List<Candidate> candidates;
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final List<String> violations = new CopyOnWriteArrayList<>();
        private final List<Long> observed = new CopyOnWriteArrayList<>();
        private final Thread thread;
        private volatile long samples;

        Sampler(List<Candidate> candidates) {
            this.candidates = candidates;
            this.thread = new Thread(this::run, "tck-leadership-sampler");
            thread.setDaemon(true);
        }

        void start() {
            thread.start();
        }

        void stop() throws InterruptedException {
            running.set(false);
            thread.join(10_000);
        }

        private void run() {
            int n = candidates.size();
            long[] first = new long[n];
            long[] second = new long[n];
            while (running.get()) {
                for (int i = 0; i < n; i++) {
                    first[i] = read(i);
                }
                for (int i = 0; i < n; i++) {
                    second[i] = read(i);
                }
                samples++;
                for (int x = 0; x < n; x++) {
                    if (first[x] < 0 || first[x] != second[x]) {
                        continue;
                    }
                    for (int y = 0; y < n; y++) {
                        long other = y > x ? first[y] : second[y];
                        if (y != x && other >= 0 && violations.size() < 10) {
                            violations.add(candidates.get(x).name + " (epoch " + first[x] + ") and "
                                    + candidates.get(y).name + " (epoch " + other + ") led at the same time");
                        }
                    }
                }
                for (int i = 0; i < n; i++) {
                    if (first[i] >= 0 && (observed.isEmpty() || observed.get(observed.size() - 1) != first[i])) {
                        observed.add(first[i]);
                    }
                }
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        private long read(int i) {
            LeaderElection election = candidates.get(i).election;
            return election == null ? -1 : election.epoch().orElse(-1);
        }

        /** Waits until the sampler has seen {@code leader}'s term (or a later one), so that its checks cover it. */
        Leader saw(Leader leader) throws InterruptedException {
            LockBackendContractSuite.await(SLACK, () -> observed.stream().anyMatch(epoch -> epoch >= leader.epoch),
                    "the sampler to see epoch " + leader.epoch);
            return leader;
        }

        void assertHeld() {
            assertThat(samples).as("samples taken").isGreaterThan(10);
            assertThat(violations).as("two leaders at once").isEmpty();
            assertThat(observed).as("epochs of successive leaders, as seen").isSorted().doesNotHaveDuplicates();
        }
    }
}
